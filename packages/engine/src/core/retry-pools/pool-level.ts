import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { ALL_STEPS, type RetryPool } from '../../db/schema';
import { POOL_SLICE_MS, sliceStartOf } from './pool-usage';

export interface PoolLevel {
  /** First attempts and granted retries in the window. */
  firstAttempts: number;
  retries: number;
  refusals: number;
  /** Retries the window allows: budget % of first attempts plus the floor, whole retries only. */
  allowed: number;
  /** Retries that may still be granted now (never below 0). */
  left: number;
  /** When the oldest retry in the window leaves it: the pool has room again by then at the latest. */
  oldestRetrySliceStart: Date | undefined;
}

/** The slices a window covers: whole slices back from the one `now` falls in. */
export function windowStart(pool: Pick<RetryPool, 'windowSeconds'>, now: Date): Date {
  return new Date(sliceStartOf(now).getTime() - pool.windowSeconds * 1_000 + POOL_SLICE_MS);
}

/** Retries a window allows for its first attempts (see retry_pools). */
export function allowedRetries(
  pool: Pick<RetryPool, 'budgetPercent' | 'minRetriesPerSecond' | 'windowSeconds'>,
  firstAttempts: number,
): number {
  return Math.floor((firstAttempts * pool.budgetPercent) / 100 + pool.minRetriesPerSecond * pool.windowSeconds + 1e-9);
}

/** Sums of a pool's usage slices over its window, as read from retry_pool_usage. */
type WindowSums = {
  first_attempts: number;
  retries: number;
  refusals: number;
  oldest_retry: string | null;
};

function levelOf(pool: RetryPool, sums: WindowSums | undefined): PoolLevel {
  const firstAttempts = sums?.first_attempts ?? 0;
  const retries = sums?.retries ?? 0;
  const allowed = allowedRetries(pool, firstAttempts);
  return {
    firstAttempts,
    retries,
    refusals: sums?.refusals ?? 0,
    allowed,
    left: Math.max(0, allowed - retries),
    oldestRetrySliceStart: sums?.oldest_retry ? new Date(sums.oldest_retry) : undefined,
  };
}

/** A pool's level over its window ending at `now`, summed from the usage slices. */
export async function readPoolLevel(db: Executor, pool: RetryPool, now: Date): Promise<PoolLevel> {
  const stepFilter = pool.step === ALL_STEPS ? sql`true` : sql`step = ${pool.step}::text`;
  const [row] = await db.execute<WindowSums>(sql`
    select coalesce(sum(first_attempts), 0)::int as first_attempts, coalesce(sum(retries), 0)::int as retries,
      coalesce(sum(refusals), 0)::int as refusals, min(slice_start) filter (where retries > 0) as oldest_retry
    from retry_pool_usage
    where agent = ${pool.agent}::text and ${stepFilter} and slice_start >= ${windowStart(pool, now).toISOString()}::timestamptz`);
  return levelOf(pool, row);
}

/**
 * Every given pool's level, in one statement rather than a round trip each:
 * for the views that list pools (the console, the metrics). The step engine
 * reads its one pool with readPoolLevel, under the pool's lock.
 */
export async function readPoolLevels(db: Executor, pools: RetryPool[], now: Date): Promise<PoolLevel[]> {
  if (pools.length === 0) return [];
  const windows = pools.map((pool, index) => ({
    index,
    agent: pool.agent,
    step: pool.step,
    since: windowStart(pool, now).toISOString(),
  }));
  const rows = await db.execute<WindowSums & { index: number }>(sql`
    select pool.index, coalesce(sum(usage.first_attempts), 0)::int as first_attempts,
      coalesce(sum(usage.retries), 0)::int as retries, coalesce(sum(usage.refusals), 0)::int as refusals,
      min(usage.slice_start) filter (where usage.retries > 0) as oldest_retry
    from jsonb_to_recordset(${JSON.stringify(windows)}::jsonb) as pool(index int, agent text, step text, since timestamptz)
    left join retry_pool_usage as usage
      on usage.agent = pool.agent and (pool.step = ${ALL_STEPS}::text or usage.step = pool.step) and usage.slice_start >= pool.since
    group by pool.index`);
  const byIndex = new Map(rows.map((row) => [Number(row.index), row]));
  return pools.map((pool, index) => levelOf(pool, byIndex.get(index)));
}
