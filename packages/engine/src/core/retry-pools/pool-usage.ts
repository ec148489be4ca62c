import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { counterStripeSql } from '../kernel/counter-stripe';

/** Usage is counted in slices of this length; a pool's window is the sum of its slices. */
export const POOL_SLICE_MS = 5_000;

export function sliceStartOf(moment: Date): Date {
  return new Date(Math.floor(moment.getTime() / POOL_SLICE_MS) * POOL_SLICE_MS);
}

type UsageColumn = 'first_attempts' | 'retries' | 'refusals';

/**
 * Adds one to a usage counter of (agent, step) in the slice of `now`, in its
 * connection's stripe (counter-stripe.ts). One upsert: concurrent counts of the
 * same slice add up, none is lost.
 */
export async function countPoolUsage(
  db: Executor,
  agent: string,
  step: string,
  now: Date,
  column: UsageColumn,
): Promise<void> {
  const counter = sql.raw(column);
  await db.execute(sql`
    insert into retry_pool_usage (agent, step, slice_start, stripe, ${counter})
    values (${agent}::text, ${step}::text, ${sliceStartOf(now).toISOString()}::timestamptz, ${counterStripeSql}, 1)
    on conflict (agent, step, slice_start, stripe) do update set ${counter} = retry_pool_usage.${counter} + 1`);
}
