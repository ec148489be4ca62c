import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import { ALL_STEPS, retryPools, type RetryPool } from '../../db/schema';
import { readPoolLevel } from './pool-level';
import { countPoolUsage, POOL_SLICE_MS } from './pool-usage';

export type PoolGrant = { granted: true } | { granted: false; pool: RetryPool; retryAfterMs: number; detail: string };

/**
 * Takes one retry from the pools that cover (agent, step): the agent's own
 * pool and the step's, where configured. Every covering pool must have room.
 * The pools' rows are locked (in id order, so two retries cannot deadlock)
 * for the rest of the caller's transaction: concurrent retries of one pool
 * are decided one after another against an exact count, so a burst can never
 * take more than the pool holds. With no pool configured, retries are limited
 * by the task's own allowance only; they are still counted.
 */
export async function takeRetryFromPools(tx: Transaction, agent: string, step: string, now: Date): Promise<PoolGrant> {
  const pools = await tx
    .select()
    .from(retryPools)
    .where(and(eq(retryPools.agent, agent), inArray(retryPools.step, [step, ALL_STEPS])))
    .orderBy(asc(retryPools.id))
    .for('update');
  for (const pool of pools) {
    const level = await readPoolLevel(tx, pool, now);
    if (level.left >= 1) continue;
    const freedAt = level.oldestRetrySliceStart
      ? level.oldestRetrySliceStart.getTime() + pool.windowSeconds * 1_000 + POOL_SLICE_MS
      : now.getTime() + POOL_SLICE_MS;
    const scope = pool.step === ALL_STEPS ? `agent ${agent}` : `step ${agent}/${step}`;
    return {
      granted: false,
      pool,
      retryAfterMs: Math.max(1_000, freedAt - now.getTime()),
      detail:
        `The retry pool of ${scope} is empty: ${level.retries} retries in the last ${pool.windowSeconds} s against ` +
        `${level.firstAttempts} first attempts allow ${level.allowed} (${pool.budgetPercent} % plus ${pool.minRetriesPerSecond}/s); wait and begin again`,
    };
  }
  await countPoolUsage(tx, agent, step, now, 'retries');
  return { granted: true };
}
