import 'server-only';
import { sql } from 'drizzle-orm';
import { readPoolLevels } from '@holdfast/engine/core';
import type { Executor } from '@holdfast/engine/db';
import { ALL_STEPS, retryPools, type RetryPool } from '@holdfast/engine/db/schema';
import type { StepName } from '@holdfast/engine/rollups';
import type { TimeRange } from '@holdfast/protocol/time-window';

const DAY_MS = 24 * 3_600_000;

/** A pool's level now, over its own sliding window. */
export interface PoolLevelNow {
  firstAttempts: number;
  retries: number;
  /** Retries the window allows: budget % of first attempts plus the floor. */
  allowed: number;
  /** Retries that may still be granted now. */
  left: number;
}

export interface RetryPoolRow extends Omit<RetryPool, 'createdAt'> {
  level: PoolLevelNow;
  /**
   * Retries refused in the pool's window and in the last 24 hours, summed
   * over the steps it covers. Refusals are counted per step, not per pool: an
   * agent-wide pool's figure includes refusals its steps' own pools made.
   */
  refusalsInWindow: number;
  refusals24h: number;
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const stepKey = (agent: string, step: string) => `${agent}/${step}`;
const covers = (pool: Pick<RetryPool, 'agent' | 'step'>, agent: string, step: string) =>
  pool.agent === agent && (pool.step === ALL_STEPS || pool.step === step);

interface StepRefusals {
  agent: string;
  step: string;
  refusals: number;
}

/** Refused retries per (agent, step) in slices starting at or after `from` (and before `to`, if given). */
async function readRefusalsByStep(db: Executor, from: Date, to?: Date): Promise<StepRefusals[]> {
  const before = to ? sql`and slice_start < ${to.toISOString()}::timestamptz` : sql``;
  const rows = await db.execute<{ agent: string; step: string; refusals: number }>(sql`
    select agent, step, sum(refusals)::bigint as refusals
    from retry_pool_usage
    where slice_start >= ${from.toISOString()}::timestamptz ${before} and refusals > 0
    group by agent, step`);
  return rows.map((row) => ({ agent: row.agent, step: row.step, refusals: Number(row.refusals) }));
}

const refusalsOfPool = (pool: Pick<RetryPool, 'agent' | 'step'>, refusals: StepRefusals[]) =>
  refusals.reduce((total, row) => (covers(pool, row.agent, row.step) ? total + row.refusals : total), 0);

/**
 * Every retry pool with its level now and the retries it refused, agent by
 * agent, the agent-wide pool before its steps'. Usage slices are kept for a
 * day, so 24 hours is as far back as refusals go.
 */
export async function listRetryPools(db: Executor, now: Date): Promise<RetryPoolRow[]> {
  const pools = await db.select().from(retryPools);
  if (pools.length === 0) return [];
  const [levels, refusals24h] = await Promise.all([
    readPoolLevels(db, pools, now),
    readRefusalsByStep(db, new Date(now.getTime() - DAY_MS)),
  ]);
  return pools
    .map(({ createdAt: _createdAt, ...pool }, index) => {
      const level = levels[index]!;
      return {
        ...pool,
        level: { firstAttempts: level.firstAttempts, retries: level.retries, allowed: level.allowed, left: level.left },
        refusalsInWindow: level.refusals,
        refusals24h: refusalsOfPool(pool, refusals24h),
      };
    })
    .sort(
      (a, b) =>
        compareText(a.agent, b.agent) ||
        (a.step === ALL_STEPS ? -1 : b.step === ALL_STEPS ? 1 : compareText(a.step, b.step)),
    );
}

/** The pools that cover one step, as the Steps page shows them. */
export interface StepPoolCoverage {
  /** Every covering pool: the agent's (step `*`) and the step's own, where configured. */
  pools: { id: number; step: string; left: number; allowed: number; windowSeconds: number }[];
  /** Retries left in the covering pool that would refuse first (a retry needs room in every one). */
  left: number;
  allowed: number;
  /** This step's refused retries in the page's window (at most the last 24 hours: usage is kept a day). */
  refusals: number;
}

/**
 * Coverage of every step some pool covers, keyed `agent/step`, for the steps
 * listed: levels now, refusals in `range`. A step no pool covers is absent.
 */
export async function getStepPoolCoverage(
  db: Executor,
  steps: StepName[],
  range: TimeRange,
  now: Date,
): Promise<Map<string, StepPoolCoverage>> {
  const coverage = new Map<string, StepPoolCoverage>();
  const pools = await db.select().from(retryPools);
  if (pools.length === 0) return coverage;
  const [levels, refusalRows] = await Promise.all([
    readPoolLevels(db, pools, now),
    readRefusalsByStep(db, range.from, range.to),
  ]);
  const refusals = new Map(refusalRows.map((row) => [stepKey(row.agent, row.step), row.refusals]));
  for (const { agent, step } of steps) {
    const covering = pools.flatMap((pool, index) => {
      const level = levels[index]!;
      return covers(pool, agent, step)
        ? [
            {
              id: pool.id,
              step: pool.step,
              left: level.left,
              allowed: level.allowed,
              windowSeconds: pool.windowSeconds,
            },
          ]
        : [];
    });
    if (covering.length === 0) continue;
    const tightest = covering.reduce((low, pool) => (pool.left < low.left ? pool : low));
    coverage.set(stepKey(agent, step), {
      pools: covering,
      left: tightest.left,
      allowed: tightest.allowed,
      refusals: refusals.get(stepKey(agent, step)) ?? 0,
    });
  }
  return coverage;
}
