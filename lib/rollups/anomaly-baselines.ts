import { sql } from 'drizzle-orm';
import type { Executor, Transaction } from '../db/client';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
export const BASELINE_DAYS = 7;

/**
 * Where the anomaly rule's baseline ends for a reading at `now`: the hour
 * start at or before 24 hours ago. The 7 baseline days are the 24-hour spans
 * before it, all whole hours, so they are always in the rollups.
 */
export function baselineEndFor(now: Date): Date {
  return new Date(Math.floor((now.getTime() - DAY_MS) / HOUR_MS) * HOUR_MS);
}

/** A step's sums over one baseline day (label "0" is the day just before the end), as text. */
export type BaselineDaySums = {
  agent: string;
  step: string;
  label: string;
  attempts: string;
  spend: string;
  retry_spend: string;
};

/** A step's retry share of spend on each baseline day that had attempts (in no particular order). */
export type BaselineShares = { agent: string; step: string; shares: number[] };

/** A day's retry share of spend: 0 when it spent nothing. */
export const retryShare = (spend: number, retrySpend: number) => (spend === 0 ? 0 : retrySpend / spend);

/** Day sums (several rows per step) as each step's shares of the days that had attempts. */
export function sharesOfDays(days: BaselineDaySums[]): BaselineShares[] {
  const byStep = new Map<string, BaselineShares>();
  for (const day of days) {
    const key = `${day.agent}/${day.step}`;
    const entry = byStep.get(key) ?? { agent: day.agent, step: day.step, shares: [] };
    if (Number(day.attempts) > 0) entry.shares.push(retryShare(Number(day.spend), Number(day.retry_spend)));
    byStep.set(key, entry);
  }
  return [...byStep.values()];
}

/**
 * The stored baseline for `end`, each step's daily shares, or null when the
 * rollup pass has not stored that one yet (the hour has turned since its last
 * pass): the caller then sums the hourly rollups itself. One statement, so the
 * state and the rows it vouches for are read from one snapshot.
 */
export async function readStoredBaselines(db: Executor, end: Date): Promise<BaselineShares[] | null> {
  const rows = await db.execute<{ current: boolean | null; agent: string | null; step: string; shares: number[] }>(sql`
    select state.baseline_end = ${end.toISOString()}::timestamptz as current, stored.agent, stored.step, stored.shares
    from rollup_state as state
      left join anomaly_baselines as stored on state.baseline_end = ${end.toISOString()}::timestamptz
    where state.id = 1`);
  if (rows[0]?.current !== true) return null;
  return rows
    .filter((row): row is typeof row & { agent: string } => row.agent !== null)
    .map(({ agent, step, shares }) => ({ agent, step, shares: shares.map(Number) }));
}

/**
 * Rewrites the stored baseline as of `end` from the hourly rollups, in the
 * rollup pass's transaction. Day d holds the hours starting in
 * [end - (d + 1) days, end - d days); a day's share is computed as retryShare
 * computes it, 0 for a day that spent nothing.
 */
export async function storeBaselines(tx: Transaction, end: Date): Promise<void> {
  const at = sql`${end.toISOString()}::timestamptz`;
  await tx.execute(sql`delete from anomaly_baselines`);
  await tx.execute(sql`
    insert into anomaly_baselines (agent, step, shares)
    select agent, step,
      array_agg(case when cost_micros = 0 then 0 else retry_cost_micros::float8 / cost_micros end order by day desc)
    from (
      select agent, step, ((extract(epoch from ${at} - bucket_start)::bigint / 3600 - 1) / 24)::smallint as day,
        sum(cost_micros) as cost_micros, sum(retry_cost_micros) as retry_cost_micros
      from attempt_rollups
      where grain = 'hour' and bucket_start >= ${at} - ${BASELINE_DAYS} * interval '1 day' and bucket_start < ${at}
      group by agent, step, 3
    ) as days
    group by agent, step`);
  await tx.execute(sql`update rollup_state set baseline_end = ${at} where id = 1`);
}

/** Whether the stored baseline must be rewritten: it ends elsewhere, or one of its hours was just rolled again. */
export function baselineIsStale(stored: Date | null, end: Date, rolled: [number, number][]): boolean {
  if (stored === null || stored.getTime() !== end.getTime()) return true;
  const from = end.getTime() - BASELINE_DAYS * DAY_MS;
  return rolled.some(([start, stop]) => start < end.getTime() && stop > from);
}
