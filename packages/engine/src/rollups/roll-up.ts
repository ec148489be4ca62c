import { sql } from 'drizzle-orm';
import type { Executor, Transaction } from '../db/client';
import { mergeHours } from './execution-shapes';
import { rollupFamilies, type RollupPass } from './families';
import { earliestHour } from './families/execution-shapes';
import { readFamilyStates } from './family-state';
import type { RollupStateRow } from './families/family';
import { fineRolledTo } from './families/figures';
import { readHeldSpans } from './spans';
import { startNotingHourlyChanges } from './hourly-changes';
import { readWriteHorizon } from './write-horizon';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const at = (ms: number) => sql`${new Date(ms).toISOString()}::timestamptz`;

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
 * What is kept from the raw log is a list of families (families/index.ts: the figures, the error groups, the
 * execution shapes, the baselines, the step sources, the stored spans), each with its hourly and daily roll-up,
 * its once-a-pass work and its retention: the pass computes the ranges and the watermarks once, and hands them to
 * each family in turn, all in one transaction.
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
  return db.transaction(async (tx) => {
    const { pass, hoursReRolled } = await planPass(tx, options);
    for (const [from, to] of pass.ranges) {
      const range = { start: at(from), end: at(to), from, to };
      for (const family of rollupFamilies) await family.rollHours?.(tx, range, pass);
    }
    // A day is read from its daily rows only once all its hours are rolled (segments.ts); until then readers take
    // its hours. So only whole days are summed: the day still open would be summed again at every hour turn.
    const days = touchedDays(pass.ranges).filter((day) => day + DAY_MS <= pass.rolledTo);
    if (days.length > 0) {
      // One array parameter (drizzle would spread a JS array into a row of parameters).
      const list = sql`${`{${days.map((day) => new Date(day).toISOString()).join(',')}}`}::timestamptz[]`;
      const inDays = sql`bucket_start >= ${at(days[0]!)} and bucket_start < ${at(days.at(-1)! + DAY_MS)} and date_trunc('day', bucket_start, 'UTC') = any(${list})`;
      for (const family of rollupFamilies) await family.rollDays?.(tx, { list, inDays });
    }
    for (const family of rollupFamilies) await family.afterRanges?.(tx, pass);
    await tx.execute(sql`
      update rollup_state set rolled_to = ${at(pass.rolledTo)}, fine_rolled_to = ${at(fineRolledTo(pass))},
        processed_xid = ${pass.horizon}::xid8, updated_at = now()
      where id = 1`);
    for (const family of rollupFamilies) await family.afterWatermarks?.(tx, pass);
    const hoursRolled = pass.ranges.reduce((sum, [from, to]) => sum + (to - from) / HOUR_MS, 0);
    return { hoursRolled, hoursReRolled, rolledTo: new Date(pass.rolledTo) };
  });
}

/** Reads the state row under its lock and works out what this pass rolls: the closed hours since, and the re-rolls. */
async function planPass(tx: Transaction, options: RollUpOptions): Promise<{ pass: RollupPass; hoursReRolled: number }> {
  const [state] = await tx.execute<RollupStateRow>(sql`
    select rolled_to, processed_xid::text, pg_current_snapshot()::text as snapshot
    from rollup_state where id = 1 for update`);
  if (!state) throw new Error('rollup_state has no row: run the migrations');
  const horizon = await readWriteHorizon(tx, state.snapshot);
  const familyStates = await readFamilyStates(tx);
  const target = Math.floor(options.now.getTime() / HOUR_MS) * HOUR_MS;
  const floor = Math.ceil(options.retentionFloor.getTime() / HOUR_MS) * HOUR_MS;
  // Transaction ids only grow within one cluster. A horizon below the stored one means the
  // database was restored into another cluster: the stored ids mean nothing there, so
  // everything still kept raw is rolled up afresh.
  const restored = BigInt(horizon) < BigInt(state.processed_xid);
  const rolledBefore = restored ? null : state.rolled_to;
  const previousEdge = rolledBefore === null ? await earliestHour(tx) : new Date(rolledBefore).getTime();
  const from = Math.max(previousEdge ?? target, floor);

  const ranges: [number, number][] = [];
  if (from < target) ranges.push([from, target]);
  let hoursReRolled = 0;
  if (rolledBefore !== null) {
    const changed = await tx.execute<{ hour: Date }>(sql`
      select distinct date_trunc('hour', started_at, 'UTC') as hour from attempts
      where changed_xid >= ${state.processed_xid}::xid8 and changed_xid < ${horizon}::xid8
        and started_at < ${at(previousEdge!)} and started_at >= ${at(floor)}`);
    hoursReRolled = changed.length;
    ranges.push(...mergeHours(changed.map((row) => new Date(row.hour).getTime())));
  }

  // The stored spans are moved rather than summed afresh when this pass notes what it changes in their hours
  // (spans.ts). Not after a restore: the spans held then may not match the rollups.
  const withoutSpans = options.without?.includes('spans') ?? false;
  const heldSpans = rolledBefore === null || withoutSpans ? [] : await readHeldSpans(tx);
  const changesNoted = heldSpans.length > 0;
  if (changesNoted) await startNotingHourlyChanges(tx);
  const pass: RollupPass = {
    now: options.now,
    ranges,
    rolledTo: Math.max(previousEdge ?? target, target),
    openHour: target,
    floor,
    restored,
    firstPass: rolledBefore === null,
    since: state.processed_xid,
    horizon,
    stateOf: (family) => familyStates.get(family) ?? {},
    changesNoted,
    withoutSpans,
    inHeldSpan: (start, end) => heldSpans.some((span) => start < span.to.getTime() && end > span.from.getTime()),
  };
  return { pass, hoursReRolled };
}

function touchedDays(ranges: [number, number][]): number[] {
  const days = new Set<number>();
  for (const [start, end] of ranges) {
    for (let day = Math.floor(start / DAY_MS) * DAY_MS; day < end; day += DAY_MS) days.add(day);
  }
  return [...days].sort((a, b) => a - b);
}

/**
 * Deletes what serves only while the raw log covers it (the five-minute rollups, the execution shapes: the
 * simulator replays only what the raw log still holds), each family its own.
 */
export async function deleteFineRollupsBefore(db: Executor, rawFloor: Date): Promise<number> {
  return db.transaction(async (tx) => {
    let deleted = 0;
    for (const family of rollupFamilies) deleted += (await family.deleteWithRawLog?.(tx, rawFloor)) ?? 0;
    return deleted;
  });
}

/** Deletes rollups older than their own retention (kept well past the raw log's), each family its own. */
export async function deleteRollupsBefore(db: Executor, cutoff: Date): Promise<number> {
  return db.transaction(async (tx) => {
    let deleted = 0;
    for (const family of rollupFamilies) deleted += (await family.deleteWithRollups?.(tx, cutoff)) ?? 0;
    return deleted;
  });
}
