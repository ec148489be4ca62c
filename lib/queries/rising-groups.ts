import 'server-only';
import { sql } from 'drizzle-orm';
import type { Executor } from '@holdfast/engine/db';
import { arrayParam } from '@holdfast/engine/core';
import type { ErrorGroupRow, ErrorGroupsView } from './error-groups';

/** A group is rising when it failed at least this often in the window... */
const RISING_MIN_FAILURES = 3;
/** ...and at least this many times as often as in the window before. */
const RISING_FACTOR = 1.5;
const SHOWN_RISING = 3;
const BUCKET_MINUTES = 5;

export interface RisingGroup extends ErrorGroupRow {
  /**
   * When the rise began: the start of the first five-minute bucket of the window in which the group failed more
   * often than 1.5 times its rate in the window before (for a new group, its first failure's bucket).
   */
  riseBeganAt: Date | null;
}

/** The error groups whose failures rose most in a window: new ones, or half as many again as before. */
export function risingGroups(groups: ErrorGroupRow[]): ErrorGroupRow[] {
  return groups
    .filter(
      (group) => group.failures >= RISING_MIN_FAILURES && group.failures >= RISING_FACTOR * group.previousFailures,
    )
    .sort((a, b) => b.failures - b.previousFailures - (a.failures - a.previousFailures))
    .slice(0, SHOWN_RISING);
}

/**
 * When each rising group's rise began, from the raw log of the window (a few groups, each one step's failures of
 * an hour or two: a short read on the index by step and start).
 */
export async function withRiseOnsets(
  db: Executor,
  view: Pick<ErrorGroupsView, 'from' | 'to' | 'windowHours'>,
  rising: ErrorGroupRow[],
): Promise<RisingGroup[]> {
  if (rising.length === 0) return [];
  const bucketsInWindow = (view.windowHours * 60) / BUCKET_MINUTES;
  // A bucket rises above the window before's rate per bucket, times the factor (0 for a group new in the window).
  const thresholds = rising.map((group) => (RISING_FACTOR * group.previousFailures) / bucketsInWindow);
  const rows = await db.execute<{ fingerprint: string; began_at: Date }>(sql`
    with wanted as (
      select * from unnest(${arrayParam(
        rising.map((group) => group.fingerprint),
        'text',
      )}, ${arrayParam(
        rising.map((group) => group.agent),
        'text',
      )}, ${arrayParam(
        rising.map((group) => group.step),
        'text',
      )}, ${arrayParam(thresholds, 'float8')}) as wanted(fingerprint, agent, step, threshold)
    ),
    buckets as (
      select holdfast_error_fingerprint(a.agent, a.step, a.error_class, a.error_text) as fingerprint,
        date_bin(${`${BUCKET_MINUTES} minutes`}::interval, a.started_at, ${view.from.toISOString()}::timestamptz) as bucket,
        count(*) as failures
      from attempts a
      where a.outcome = 'failed' and (a.agent, a.step) in (select agent, step from wanted)
        and a.started_at >= ${view.from.toISOString()}::timestamptz and a.started_at < ${view.to.toISOString()}::timestamptz
      group by 1, 2
    )
    select w.fingerprint, min(b.bucket) as began_at
    from wanted w join buckets b on b.fingerprint = w.fingerprint and b.failures > w.threshold
    group by w.fingerprint`);
  const began = new Map(rows.map((row) => [row.fingerprint, new Date(row.began_at)]));
  return rising.map((group) => ({ ...group, riseBeganAt: began.get(group.fingerprint) ?? null }));
}
