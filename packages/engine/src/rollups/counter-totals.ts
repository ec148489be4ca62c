import { type SQL, sql } from 'drizzle-orm';
import type { Transaction } from '../db/client';
import { COUNTER_FIGURES, FIGURES, STEP_TOTAL_FIGURES } from '../db/schema/figures';
import { figureColumnTypes, figureList, signedFigures, summedFigures } from './figure-sql';

/** An hour range's rollup sums per (agent, step, error class), as text (bigint sums exceed a JS number's exact range). */
type RangeSums = { agent: string; step: string; error_class: string | null } & Record<string, string>;

/**
 * Deletes the hourly rollups of [start, end) (the pass writes them afresh) and returns what they summed to, for
 * addIncreaseToTotals: read from the very rows being deleted, so the range is not scanned twice.
 */
export async function deleteHourlyRowsForTotals(tx: Transaction, start: SQL, end: SQL): Promise<RangeSums[]> {
  return tx.execute<RangeSums>(sql`
    with removed as (
      delete from attempt_rollups where grain = 'hour' and bucket_start >= ${start} and bucket_start < ${end}
      returning agent, step, error_class, ${figureList(COUNTER_FIGURES)}
    )
    select agent, step, error_class, ${summedFigures(COUNTER_FIGURES)}
    from removed
    group by agent, step, error_class`);
}

const totalsColumns = STEP_TOTAL_FIGURES.map((name) => FIGURES[name].column);
const eachTotal = (part: (column: string) => string, separator = ', ') =>
  sql.raw(totalsColumns.map(part).join(separator));

/**
 * Adds the range's new rollup sums minus its old ones to the running totals
 * behind the Prometheus counters (attempt_totals, failure_totals), in the
 * pass's transaction, so the totals and the rollups move together.
 *
 * The increase is floored at zero per totals row (greatest(delta, 0)): a
 * counter must never go backwards, and a re-rolled hour only grows, since
 * attempts are only inserted or finished (running -> succeeded or failed),
 * never deleted or reopened within the hours a pass recomputes (retention
 * drops only hours before the floor, which are never recomputed). A negative
 * delta would mean rows vanished some other way; the totals then keep what
 * they already counted rather than un-count it.
 *
 * Attempts, retries and spend are floored per (agent, step), not per error
 * class: a running attempt that fails moves from the null class to its error
 * class, a decrease in one class that the other's increase balances.
 */
export async function addIncreaseToTotals(tx: Transaction, start: SQL, end: SQL, before: RangeSums[]): Promise<void> {
  await tx.execute(sql`
    with before as (
      select * from jsonb_to_recordset(${JSON.stringify(before)}::jsonb) as sums(agent text, step text,
        error_class error_class, ${figureColumnTypes(COUNTER_FIGURES, 'numeric')})
    ),
    after as (
      select agent, step, error_class, ${summedFigures(COUNTER_FIGURES)}
      from attempt_rollups
      where grain = 'hour' and bucket_start >= ${start} and bucket_start < ${end}
      group by agent, step, error_class
    ),
    change as (
      select agent, step, error_class, ${summedFigures(COUNTER_FIGURES)}
      from (
        select * from after
        union all
        select agent, step, error_class, ${signedFigures(-1, COUNTER_FIGURES)} from before
      ) as both_sides
      group by agent, step, error_class
    ),
    per_step as (
      select agent, step, ${eachTotal((column) => `greatest(sum(${column}), 0) as ${column}`)}
      from change
      group by agent, step
    ),
    counted as (
      insert into attempt_totals (agent, step, ${figureList(STEP_TOTAL_FIGURES)})
      select agent, step, ${figureList(STEP_TOTAL_FIGURES)} from per_step
      where ${eachTotal((column) => `${column} > 0`, ' or ')}
      on conflict (agent, step) do update set
        ${eachTotal((column) => `${column} = attempt_totals.${column} + excluded.${column}`)}
    )
    insert into failure_totals (agent, step, error_class, failures)
    select agent, step, error_class, failures from change
    where error_class is not null and failures > 0
    on conflict (agent, step, error_class) do update set failures = failure_totals.failures + excluded.failures`);
}
