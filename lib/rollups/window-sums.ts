import { sql } from 'drizzle-orm';
import type { Transaction } from '../db/client';
import { resolveTimeWindow, type TimeRange, timeWindowName } from '../time-window';
import { FINE_BUCKET_MS } from './bucket-sums';
import { figureList, summedFigures } from './figure-sql';
import { planFigures } from './figures';
import { passStamp } from './pass-stamp';
import { ceilTo, floorTo } from './segments';

/**
 * The ranges a rollup pass at `now` sums per step: for every named window
 * ending at `now`, and the window of the same length before it, the whole
 * five-minute buckets inside it that are rolled up (the window ending now
 * stops at the five-minute edge). A reader a minute later finds the range of
 * its own window within a few minutes at each end and corrects by those
 * (planFromStoredSums in segments.ts).
 *
 * A range starting before the raw log's retention floor is left out: its
 * five-minute rows are gone, so the buckets a reader would subtract could no
 * longer be read, while the hourly rows that made the sum are still there.
 */
export function windowSumRangesFor(now: Date, fineRolledTo: Date, retentionFloor: Date): TimeRange[] {
  return timeWindowName.options
    .flatMap((name) => {
      const window = resolveTimeWindow(name, now);
      const length = window.to.getTime() - window.from.getTime();
      const current = {
        from: ceilTo(window.from.getTime(), FINE_BUCKET_MS),
        to: Math.min(floorTo(window.to.getTime(), FINE_BUCKET_MS), fineRolledTo.getTime()),
      };
      const before = {
        from: ceilTo(window.from.getTime() - length, FINE_BUCKET_MS),
        to: floorTo(window.from.getTime(), FINE_BUCKET_MS),
      };
      return [current, before];
    })
    .filter((range) => range.from < range.to && range.from >= retentionFloor.getTime())
    .map((range) => ({ from: new Date(range.from), to: new Date(range.to) }));
}

const bound = (moment: Date) => sql`${moment.toISOString()}::timestamptz`;

/**
 * Rewrites the stored window sums for a pass at `now`, in the pass's
 * transaction, after its rollups and spans are written (the sums are read
 * from them). The previous pass's ranges are kept, so a reader that read the
 * ranges just before this commits still finds their rows; older ones go.
 */
export async function storeWindowSums(
  tx: Transaction,
  options: { now: Date; fineRolledTo: Date; retentionFloor: Date },
): Promise<void> {
  const ranges = windowSumRangesFor(options.now, options.fineRolledTo, options.retentionFloor);
  await tx.execute(sql`
    with dropped as (
      delete from window_sum_ranges where stored_at < (select max(stored_at) from window_sum_ranges)
      returning sums_from, sums_to)
    delete from window_sums using dropped
    where window_sums.sums_from = dropped.sums_from and window_sums.sums_to = dropped.sums_to`);
  if (ranges.length === 0) return;

  const rangeList = sql.join(
    ranges.map((range) => sql`(${bound(range.from)}, ${bound(range.to)})`),
    sql`, `,
  );
  await tx.execute(sql`delete from window_sums where (sums_from, sums_to) in (${rangeList})`);
  // Every range in one plan and one statement, labelled by its position; summed from the rollups as any reader
  // would (spans included), never from stored window sums.
  const plan = await planFigures(tx, { windows: ranges.map((range, index) => ({ label: String(index), ...range })) });
  const labelled = sql.join(
    ranges.map((range, index) => sql`(${String(index)}, ${bound(range.from)}, ${bound(range.to)})`),
    sql`, `,
  );
  await tx.execute(sql`
    insert into window_sums (sums_from, sums_to, agent, step, ${figureList()})
    select range.sums_from, range.sums_to, agent, step, ${summedFigures()}
    from ${plan.figures} as figures
      join (values ${labelled}) as range(label, sums_from, sums_to) using (label)
    group by range.sums_from, range.sums_to, agent, step
    having sum(attempts) > 0`);
  await tx.execute(sql`
    insert into window_sum_ranges (sums_from, sums_to, stored_at)
    select sums_from, sums_to, ${passStamp('window_sum_ranges')} from (values ${rangeList}) as ranges(sums_from, sums_to)
    on conflict (sums_from, sums_to) do update set stored_at = excluded.stored_at`);
}
