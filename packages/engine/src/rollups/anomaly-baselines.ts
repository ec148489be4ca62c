import { type SQL, sql } from 'drizzle-orm';
import type { Executor, Transaction } from '../db/client';
import { FIGURES, type FigureName } from '../db/schema/figures';
import { saveFamilyState } from './family-state';
import { figureList, summedFigures } from './figure-sql';

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
    select (state.state->>'sharesEnd')::timestamptz = ${end.toISOString()}::timestamptz as current,
      stored.agent, stored.step, stored.shares
    from rollup_family_state as state
      left join anomaly_baselines as stored on (state.state->>'sharesEnd')::timestamptz = ${end.toISOString()}::timestamptz
    where state.family = 'baselines'`);
  if (rows[0]?.current !== true) return null;
  return rows
    .filter((row): row is typeof row & { agent: string } => row.agent !== null)
    .map(({ agent, step, shares }) => ({ agent, step, shares: shares.map(Number) }));
}

/**
 * Brings the stored baseline to `end`, in the rollup pass's transaction: the
 * day sums moved by the hours `end` moved, when they are a few hours behind
 * and no hour of theirs was rolled again in this pass; otherwise (the first
 * pass, a late row in the baseline, a pass after a long pause) summed afresh
 * from the hourly rollups. Afresh also at every UTC midnight, so any drift
 * (an instance of an earlier version re-rolling a baseline hour during a
 * rolling upgrade) lasts a day at most. Then the shares are rewritten from
 * the day sums. Nothing when the baseline is current.
 */
export async function refreshBaselines(
  tx: Transaction,
  stored: { shares: Date | null; days: Date | null },
  end: Date,
  rolled: [number, number][],
): Promise<void> {
  if (!baselineIsStale(stored.shares, end, rolled) && !baselineIsStale(stored.days, end, rolled)) return;
  const from = stored.days;
  const hoursMoved = from === null ? 0 : (end.getTime() - from.getTime()) / HOUR_MS;
  // Every hour the move reads or keeps must be as the day sums saw it: none rolled again in this pass.
  const touched = (oldest: number) => rolled.some(([start, stop]) => start < end.getTime() && stop > oldest);
  if (
    from !== null &&
    hoursMoved >= 1 &&
    hoursMoved <= MAX_HOURS_MOVED &&
    end.getTime() % DAY_MS !== 0 &&
    !touched(from.getTime() - BASELINE_DAYS * DAY_MS)
  ) {
    await moveBaselineDays(tx, from, end);
  } else {
    await sumBaselineDays(tx, end);
  }
  await writeShares(tx, end);
}

/** Beyond this many hours a move reads more hourly rows than summing afresh: 8 hours of rows per hour moved. */
const MAX_HOURS_MOVED = 6;

/**
 * Day d of a baseline ending at `end` holds the hours starting in [end - (d + 1) days, end - d days) (so, for an
 * end at midnight, the UTC day starting at end - (d + 1) days).
 */
const dayOf = (end: SQL) => sql`((extract(epoch from ${end} - bucket_start)::bigint / 3600 - 1) / 24)::smallint`;

/**
 * Sums the day sums afresh: from the hourly rollups, or, for a baseline ending at a UTC midnight (whose days are
 * whole UTC days, all rolled: the newest ended a day before the hourly edge), from the daily ones, a row per
 * step and day instead of 24. That is the pass after each midnight, which sums afresh by rule.
 */
async function sumBaselineDays(tx: Transaction, end: Date): Promise<void> {
  const at = sql`${end.toISOString()}::timestamptz`;
  const grain = end.getTime() % DAY_MS === 0 ? 'day' : 'hour';
  await tx.execute(sql`delete from anomaly_baseline_days`);
  await tx.execute(sql`
    insert into anomaly_baseline_days (agent, step, day, ${figureList(DAY_FIGURES)})
    select agent, step, ${dayOf(at)}, ${summedFigures(DAY_FIGURES)}
    from attempt_rollups
    where grain = ${grain} and bucket_start >= ${at} - ${BASELINE_DAYS} * interval '1 day' and bucket_start < ${at}
    group by agent, step, 3`);
}

/**
 * Moves the day sums from `from` to `end` (a few hours later): each day gains
 * the hours after its old end and loses the hours after its old start. An
 * hour gained by day d is the one lost by day d - 1, so the hours read are
 * the eight stretches [from - k days, end - k days), k = 0 … 7.
 */
async function moveBaselineDays(tx: Transaction, from: Date, end: Date): Promise<void> {
  const oldEnd = sql`${from.toISOString()}::timestamptz`;
  const newEnd = sql`${end.toISOString()}::timestamptz`;
  const stretches = sql.join(
    Array.from(
      { length: BASELINE_DAYS + 1 },
      (_, k) =>
        sql`(bucket_start >= ${oldEnd} - ${k} * interval '1 day' and bucket_start < ${newEnd} - ${k} * interval '1 day')`,
    ),
    sql` or `,
  );
  // k: how many days before the new end the hour lies (its stretch); day k gains it, day k - 1 loses it.
  await tx.execute(sql`
    insert into anomaly_baseline_days (agent, step, day, ${figureList(DAY_FIGURES)})
    select agent, step, day, ${summedFigures(DAY_FIGURES)}
    from (
      select agent, step, change.day, ${signedColumns('change.sign')}
      from (
        select agent, step, ((extract(epoch from ${newEnd} - bucket_start)::bigint / 3600 - 1) / 24)::smallint as k,
          ${figureList(DAY_FIGURES)}
        from attempt_rollups
        where grain = 'hour' and (${stretches})
      ) as hours,
        lateral (values (k, 1), (k - 1, -1)) as change(day, sign)
      where change.day between 0 and ${BASELINE_DAYS - 1}
    ) as changes
    group by agent, step, day
    on conflict (agent, step, day) do update set
      ${sql.raw(DAY_FIGURES.map((name) => `${FIGURES[name].column} = anomaly_baseline_days.${FIGURES[name].column} + excluded.${FIGURES[name].column}`).join(', '))}`);
  await tx.execute(sql`delete from anomaly_baseline_days where attempts = 0`);
}

/** Rewrites each step's shares (the days with attempts, oldest first) from the day sums, and marks both current. */
async function writeShares(tx: Transaction, end: Date): Promise<void> {
  await tx.execute(sql`delete from anomaly_baselines`);
  await tx.execute(sql`
    insert into anomaly_baselines (agent, step, shares)
    select agent, step,
      array_agg(case when cost_micros = 0 then 0 else retry_cost_micros::float8 / cost_micros end order by day desc)
    from anomaly_baseline_days
    where attempts > 0
    group by agent, step`);
  await saveFamilyState(tx, 'baselines', { sharesEnd: end.toISOString(), daysEnd: end.toISOString() });
}

/** What a baseline day keeps: enough for a day's retry share of spend, and whether it had attempts. */
const DAY_FIGURES = ['attempts', 'costMicros', 'retryCostMicros'] as const satisfies FigureName[];

/** Each day figure times a sign column (1 or -1), named by its column. */
const signedColumns = (sign: string) =>
  sql.raw(DAY_FIGURES.map((name) => `${FIGURES[name].column} * ${sign} as ${FIGURES[name].column}`).join(', '));

/** Whether the stored baseline must be rewritten: it ends elsewhere, or one of its hours was just rolled again. */
export function baselineIsStale(stored: Date | null, end: Date, rolled: [number, number][]): boolean {
  if (stored === null || stored.getTime() !== end.getTime()) return true;
  const from = end.getTime() - BASELINE_DAYS * DAY_MS;
  return rolled.some(([start, stop]) => start < end.getTime() && stop > from);
}
