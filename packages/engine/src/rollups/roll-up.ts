import { sql } from 'drizzle-orm';
import type { Executor, Transaction } from '../db/client';
import { baselineEndFor, refreshBaselines } from './anomaly-baselines';
import { FINE_BUCKET_MS, insertSumsOfFinerRows, sumAllSteps, writeFineBuckets } from './bucket-sums';
import { deleteErrorGroupsBefore, rollErrorGroupDays, rollErrorGroupHours } from './error-groups';
import {
  deleteExecutionShapesBefore,
  hoursOfChangedExecutions,
  mergeHours,
  rollExecutionShapes,
} from './execution-shapes';
import { addIncreaseToTotals, deleteHourlyRowsForTotals } from './counter-totals';
import { noteHourlyRows, startNotingHourlyChanges } from './hourly-changes';
import { deleteSpans, readHeldSpans, storeSpans } from './spans';
import { noteStepSources } from './step-sources';
import { readWriteHorizon } from './write-horizon';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export interface RollUpResult {
  /** Hours recomputed from the raw log in this pass (newly closed ones and re-rolls). */
  hoursRolled: number;
  /** Of those, hours that were already rolled up and changed since (late rows, finished runs). */
  hoursReRolled: number;
  rolledTo: Date | null;
}

/**
 * One pass of the rollup sweep. Three watermarks, kept in rollup_state:
 *
 * - `rolled_to`: every closed hour before it is in the rollups (hourly and
 *   five-minute rows). Each pass rolls the hours that closed since.
 * - `fine_rolled_to`: the five-minute buckets of the open hour that had
 *   closed when the pass ran are in the rollups too. Its rows change all the
 *   time (running attempts finish, agents report late), so each pass
 *   rewrites them whole. Readers take whole buckets before it from the
 *   rollups and read raw only the minutes after it and the minutes before a
 *   window's first whole bucket: at most about five minutes at each edge.
 *   The price: a row started before it that changes shows at the next pass,
 *   within a minute, as rows of rolled hours always have.
 * - `processed_xid`: every row written by a transaction before it has been
 *   seen. A late report for a closed hour, or a running attempt that finished,
 *   writes its row with a newer transaction id (attempts.changed_xid); the
 *   next pass finds those rows and recomputes their hours.
 *
 * The new `processed_xid` is the oldest transaction of this database still
 * running when the pass starts (write-horizon.ts), so a row from a transaction
 * that commits during the pass is picked up by the next one. Recomputing replaces an hour's rows wholesale,
 * so a pass that repeats work (after a crash) gives the same result.
 *
 * Hours before `retentionFloor` are never recomputed: their raw rows may be
 * gone, and their rollups outlive them.
 *
 * Last, from the rollups just written, the pass stores the stored spans
 * (packages/engine/src/rollups/spans.ts) and every named window's sums per step
 * (packages/engine/src/rollups/window-sums.ts), so a reader of every step's figures reads a
 * row per step instead of a window's edges, which with thousands of steps hold
 * about a five-minute row per attempt.
 *
 * Each recomputed range also adds its increase (new sums minus old) to the
 * running totals behind GET /metrics' counters, in this transaction. A range
 * rolled afresh after a restore finds its old rollups restored beside the
 * totals, so it adds only what the raw log gained since; retention never
 * touches the totals, so a counter outlives the rows it counted.
 */
export interface RollUpOptions {
  now: Date;
  retentionFloor: Date;
  /**
   * Measurement only (scripts/measure-rollup-caches.ts): leave the stored spans out, their tables emptied, so
   * readers sum the rollups themselves. Every caller in the product stores them.
   */
  without?: 'spans'[];
}

export async function rollUpAttempts(db: Executor, options: RollUpOptions): Promise<RollUpResult> {
  const without = options.without ?? [];
  return db.transaction(async (tx) => {
    const [state] = await tx.execute<{
      rolled_to: Date | null;
      processed_xid: string;
      snapshot: string;
      baseline_end: Date | null;
      baseline_days_end: Date | null;
      execution_shapes_filled: boolean;
    }>(sql`
      select rolled_to, processed_xid::text, pg_current_snapshot()::text as snapshot, baseline_end, baseline_days_end,
        execution_shapes_filled
      from rollup_state where id = 1 for update`);
    if (!state) throw new Error('rollup_state has no row: run the migrations');
    const horizon = await readWriteHorizon(tx, state.snapshot);

    const target = Math.floor(options.now.getTime() / HOUR_MS) * HOUR_MS;
    const floor = Math.ceil(options.retentionFloor.getTime() / HOUR_MS) * HOUR_MS;
    // Transaction ids only grow within one cluster. A horizon below the stored one means the
    // database was restored into another cluster: the stored ids mean nothing there, so
    // everything still kept raw is rolled up afresh.
    const restored = BigInt(horizon) < BigInt(state.processed_xid);
    if (restored) state.rolled_to = null;
    const previousEdge = state.rolled_to === null ? await earliestHour(tx) : new Date(state.rolled_to).getTime();
    const from = Math.max(previousEdge ?? target, floor);

    const ranges: [number, number][] = [];
    if (from < target) ranges.push([from, target]);

    let hoursReRolled = 0;
    if (state.rolled_to !== null) {
      const changed = await tx.execute<{ hour: Date }>(sql`
        select distinct date_trunc('hour', started_at, 'UTC') as hour from attempts
        where changed_xid >= ${state.processed_xid}::xid8 and changed_xid < ${horizon}::xid8
          and started_at < ${new Date(previousEdge!).toISOString()}::timestamptz
          and started_at >= ${new Date(floor).toISOString()}::timestamptz`);
      hoursReRolled = changed.length;
      ranges.push(...mergeHours(changed.map((row) => new Date(row.hour).getTime())));
    }

    // The stored spans are moved rather than summed afresh when this pass notes what it changes in their hours
    // (packages/engine/src/rollups/spans.ts). Not after a restore: the spans held then may not match the rollups.
    const heldSpans = restored || state.rolled_to === null || without.includes('spans') ? [] : await readHeldSpans(tx);
    const changesNoted = heldSpans.length > 0;
    if (changesNoted) await startNotingHourlyChanges(tx);
    const inHeldSpan = (start: number, end: number) =>
      heldSpans.some((span) => start < span.to.getTime() && end > span.from.getTime());

    let hoursRolled = 0;
    for (const [start, end] of ranges) {
      await rollHours(tx, new Date(start), new Date(end), changesNoted && inHeldSpan(start, end));
      hoursRolled += (end - start) / HOUR_MS;
    }
    const rolledTo = Math.max(previousEdge ?? target, target);
    // A day is read from its daily rows only once all its hours are rolled (segments.ts); until then readers take
    // its hours. So only whole days are summed: the day still open would be summed again at every hour turn.
    await rollDays(
      tx,
      touchedDays(ranges).filter((day) => day.getTime() + DAY_MS <= rolledTo),
    );
    await rollShapesOfChangedExecutions(tx, {
      fillAll: restored || state.rolled_to === null || !state.execution_shapes_filled,
      since: state.processed_xid,
      horizon,
      floor,
      openHour: target,
    });

    // The anomaly rule's baseline as a reading in the hour after the edge needs it.
    const baselineEnd = baselineEndFor(new Date(rolledTo));
    const storedAt = (end: Date | null) => (end === null || restored ? null : new Date(end));
    await refreshBaselines(
      tx,
      { shares: storedAt(state.baseline_end), days: storedAt(state.baseline_days_end) },
      baselineEnd,
      ranges,
    );
    // The open hour's closed five-minute buckets, rewritten whole each pass: its rows change all the time
    // (running attempts finish), and at most an hour of raw log is read for them.
    const fineRolledTo = Math.max(rolledTo, Math.floor(options.now.getTime() / FINE_BUCKET_MS) * FINE_BUCKET_MS);
    await writeFineBuckets(
      tx,
      sql`${new Date(rolledTo).toISOString()}::timestamptz`,
      sql`${new Date(fineRolledTo).toISOString()}::timestamptz`,
    );
    await noteStepSources(tx, restored ? '0' : state.processed_xid, horizon);
    await tx.execute(sql`
      update rollup_state set rolled_to = ${new Date(rolledTo).toISOString()}::timestamptz,
        fine_rolled_to = ${new Date(fineRolledTo).toISOString()}::timestamptz,
        processed_xid = ${horizon}::xid8, execution_shapes_filled = true, updated_at = now()
      where id = 1`);
    if (without.includes('spans')) await deleteSpans(tx, sql`true`);
    else await storeSpans(tx, new Date(rolledTo), ranges, { changesNoted });
    return { hoursRolled, hoursReRolled, rolledTo: new Date(rolledTo) };
  });
}

async function earliestHour(tx: Transaction): Promise<number | undefined> {
  const [row] = await tx.execute<{ hour: Date | null }>(
    sql`select date_trunc('hour', min(started_at), 'UTC') as hour from attempts`,
  );
  return row?.hour ? new Date(row.hour).getTime() : undefined;
}

/**
 * Rewrites the execution shapes (the simulator's input) of every hour whose executions changed since the last
 * pass, or, the first time and after a restore, of every hour kept raw up to the open one.
 */
async function rollShapesOfChangedExecutions(
  tx: Transaction,
  pass: { fillAll: boolean; since: string; horizon: string; floor: number; openHour: number },
): Promise<void> {
  const ranges = pass.fillAll
    ? [[Math.max((await earliestHour(tx)) ?? pass.openHour, pass.floor), pass.openHour + HOUR_MS] as const]
    : mergeHours(await hoursOfChangedExecutions(tx, pass));
  for (const [start, end] of ranges) await rollExecutionShapes(tx, [start, end]);
}

function touchedDays(ranges: [number, number][]): Date[] {
  const days = new Set<number>();
  for (const [start, end] of ranges) {
    for (let day = Math.floor(start / DAY_MS) * DAY_MS; day < end; day += DAY_MS) days.add(day);
  }
  return [...days].sort((a, b) => a - b).map((day) => new Date(day));
}

/**
 * Replaces the five-minute and hourly rollups of [from, to) with sums
 * recomputed from the raw log (noting the change for the stored spans when
 * asked), and adds what
 * that changed to the running totals behind the Prometheus counters
 * (attempt_totals, failure_totals).
 */
async function rollHours(tx: Transaction, from: Date, to: Date, noteChanges: boolean): Promise<void> {
  const start = sql`${from.toISOString()}::timestamptz`;
  const end = sql`${to.toISOString()}::timestamptz`;
  if (noteChanges) await noteHourlyRows(tx, start, end, -1);
  const before = await deleteHourlyRowsForTotals(tx, start, end);
  await tx.execute(
    sql`delete from attempt_latency_rollups where grain = 'hour' and bucket_start >= ${start} and bucket_start < ${end}`,
  );
  await writeFineBuckets(tx, start, end);
  await insertSumsOfFinerRows(tx, 'hour', sql`bucket_start >= ${start} and bucket_start < ${end}`);
  if (noteChanges) await noteHourlyRows(tx, start, end, 1);
  await sumAllSteps(tx, 'hour', sql`bucket_start >= ${start} and bucket_start < ${end}`);
  await rollErrorGroupHours(tx, start, end);
  await addIncreaseToTotals(tx, start, end, before);
}

/** Replaces the daily rollups of the given days with the sums of their hourly rows. */
async function rollDays(tx: Transaction, days: Date[]): Promise<void> {
  if (days.length === 0) return;
  // One array parameter (drizzle would spread a JS array into a row of parameters).
  const dayList = sql`${`{${days.map((day) => day.toISOString()).join(',')}}`}::timestamptz[]`;
  const from = sql`${days[0]!.toISOString()}::timestamptz`;
  const to = sql`${new Date(days.at(-1)!.getTime() + DAY_MS).toISOString()}::timestamptz`;
  const inDays = sql`bucket_start >= ${from} and bucket_start < ${to} and date_trunc('day', bucket_start, 'UTC') = any(${dayList})`;
  await tx.execute(sql`delete from attempt_rollups where grain = 'day' and ${inDays}`);
  await tx.execute(sql`delete from attempt_latency_rollups where grain = 'day' and ${inDays}`);
  await insertSumsOfFinerRows(tx, 'day', inDays);
  await sumAllSteps(tx, 'day', inDays);
  await rollErrorGroupDays(tx, dayList);
}

/**
 * Deletes five-minute rollups older than the raw log's retention: they serve
 * only the edges of windows that the raw log still covers, and kept longer
 * they would cost twelve times the hourly rows. The execution shapes go with
 * them: the simulator replays only what the raw log still holds.
 */
export async function deleteFineRollupsBefore(db: Executor, rawFloor: Date): Promise<number> {
  const before = sql`grain = '5min' and bucket_start < ${rawFloor.toISOString()}::timestamptz`;
  return db.transaction(async (tx) => {
    const rows = await tx.execute(sql`delete from attempt_rollups where ${before}`);
    const latency = await tx.execute(sql`delete from attempt_latency_rollups where ${before}`);
    await tx.execute(sql`delete from all_steps_rollups where ${before}`);
    await deleteExecutionShapesBefore(tx, rawFloor);
    return rows.count + latency.count;
  });
}

/** Deletes rollups older than their own retention (kept well past the raw log's). */
export async function deleteRollupsBefore(db: Executor, cutoff: Date): Promise<number> {
  const counts = await db.transaction(async (tx) => {
    const rows = await tx.execute(
      sql`delete from attempt_rollups where bucket_start < ${cutoff.toISOString()}::timestamptz`,
    );
    const latency = await tx.execute(
      sql`delete from attempt_latency_rollups where bucket_start < ${cutoff.toISOString()}::timestamptz`,
    );
    await tx.execute(sql`delete from all_steps_rollups where bucket_start < ${cutoff.toISOString()}::timestamptz`);
    await deleteErrorGroupsBefore(tx, cutoff);
    // A stored span reaching back past the cutoff would outlive the rows it sums: readers then sum the rollups left.
    await deleteSpans(tx, sql`span_from < ${cutoff.toISOString()}::timestamptz`);
    return rows.count + latency.count;
  });
  return counts;
}
