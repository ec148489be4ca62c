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

/** A pool's level over its window ending at `now`, summed from the usage slices. */
export async function readPoolLevel(db: Executor, pool: RetryPool, now: Date): Promise<PoolLevel> {
  const stepFilter = pool.step === ALL_STEPS ? sql`true` : sql`step = ${pool.step}::text`;
  const [row] = await db.execute<{
    first_attempts: number;
    retries: number;
    refusals: number;
    oldest_retry: string | null;
  }>(sql`
    select coalesce(sum(first_attempts), 0)::int as first_attempts, coalesce(sum(retries), 0)::int as retries,
      coalesce(sum(refusals), 0)::int as refusals, min(slice_start) filter (where retries > 0) as oldest_retry
    from retry_pool_usage
    where agent = ${pool.agent}::text and ${stepFilter} and slice_start >= ${windowStart(pool, now).toISOString()}::timestamptz`);
  const firstAttempts = row?.first_attempts ?? 0;
  const retries = row?.retries ?? 0;
  const allowed = allowedRetries(pool, firstAttempts);
  return {
    firstAttempts,
    retries,
    refusals: row?.refusals ?? 0,
    allowed,
    left: Math.max(0, allowed - retries),
    oldestRetrySliceStart: row?.oldest_retry ? new Date(row.oldest_retry) : undefined,
  };
}
