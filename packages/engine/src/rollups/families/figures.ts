import { sql } from 'drizzle-orm';
import { FINE_BUCKET_MS, insertSumsOfFinerRows, sumAllSteps, writeFineBuckets } from '../bucket-sums';
import { addIncreaseToTotals, deleteHourlyRowsForTotals } from '../counter-totals';
import { noteHourlyRows } from '../hourly-changes';
import type { RollupFamily } from './family';

const at = (ms: number) => sql`${new Date(ms).toISOString()}::timestamptz`;

/**
 * Each step's figures: the five-minute, hourly and daily rollups (attempt_rollups), their latency histograms,
 * the all-steps rows, and the running totals behind GET /metrics' counters. An hour's rows are replaced with
 * sums recomputed from the raw log, and what that changed is added to the totals (new sums minus old), so a
 * range rolled again after a restore adds only what the raw log gained; retention never touches the totals.
 * The open hour's closed five-minute buckets are rewritten whole at every pass.
 */
export const figuresFamily: RollupFamily = {
  name: 'figures',
  async rollHours(tx, { start, end, from, to }, pass) {
    // Noted for the stored spans, when the pass moves one that holds these hours.
    const noteChanges = pass.changesNoted && pass.inHeldSpan(from, to);
    if (noteChanges) await noteHourlyRows(tx, start, end, -1);
    const before = await deleteHourlyRowsForTotals(tx, start, end);
    await tx.execute(
      sql`delete from attempt_latency_rollups where grain = 'hour' and bucket_start >= ${start} and bucket_start < ${end}`,
    );
    await writeFineBuckets(tx, start, end);
    await insertSumsOfFinerRows(tx, 'hour', sql`bucket_start >= ${start} and bucket_start < ${end}`);
    if (noteChanges) await noteHourlyRows(tx, start, end, 1);
    await sumAllSteps(tx, 'hour', sql`bucket_start >= ${start} and bucket_start < ${end}`);
    await addIncreaseToTotals(tx, start, end, before);
  },
  async rollDays(tx, { inDays }) {
    await tx.execute(sql`delete from attempt_rollups where grain = 'day' and ${inDays}`);
    await tx.execute(sql`delete from attempt_latency_rollups where grain = 'day' and ${inDays}`);
    await insertSumsOfFinerRows(tx, 'day', inDays);
    await sumAllSteps(tx, 'day', inDays);
  },
  // The open hour's closed five-minute buckets, rewritten whole each pass: its rows change all the time
  // (running attempts finish), and at most an hour of raw log is read for them.
  async afterRanges(tx, pass) {
    await writeFineBuckets(tx, at(pass.rolledTo), at(fineRolledTo(pass)));
  },
  async deleteWithRawLog(tx, rawFloor) {
    // The five-minute rows serve only the edges of windows the raw log still covers; kept longer they would
    // cost twelve times the hourly rows.
    const before = sql`grain = '5min' and bucket_start < ${rawFloor.toISOString()}::timestamptz`;
    const rows = await tx.execute(sql`delete from attempt_rollups where ${before}`);
    const latency = await tx.execute(sql`delete from attempt_latency_rollups where ${before}`);
    await tx.execute(sql`delete from all_steps_rollups where ${before}`);
    return rows.count + latency.count;
  },
  async deleteWithRollups(tx, cutoff) {
    const before = sql`bucket_start < ${cutoff.toISOString()}::timestamptz`;
    const rows = await tx.execute(sql`delete from attempt_rollups where ${before}`);
    const latency = await tx.execute(sql`delete from attempt_latency_rollups where ${before}`);
    await tx.execute(sql`delete from all_steps_rollups where ${before}`);
    return rows.count + latency.count;
  },
};

/** How far the five-minute buckets are rolled once the pass commits: the open hour's closed ones too. */
export function fineRolledTo(pass: { rolledTo: number; now: Date }): number {
  return Math.max(pass.rolledTo, Math.floor(pass.now.getTime() / FINE_BUCKET_MS) * FINE_BUCKET_MS);
}
