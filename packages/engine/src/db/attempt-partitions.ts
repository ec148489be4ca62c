import { sql } from 'drizzle-orm';
import type { Executor } from './client';

/**
 * The attempt log is partitioned by UTC day on started_at. Daily partitions
 * are named attempts_pYYYYMMDD and created ahead of time; a row for a day
 * without one lands in attempts_default and is moved when its day is created.
 * Retention drops whole days, which is instant and leaves no dead rows behind.
 */

const DAY_MS = 86_400_000;
/** Serialises partition maintenance between processes (any fixed number works). */
const MAINTENANCE_LOCK = 7_301_004;

export function startOfUtcDay(moment: Date): Date {
  return new Date(Math.floor(moment.getTime() / DAY_MS) * DAY_MS);
}

export function partitionName(day: Date): string {
  return `attempts_p${day.toISOString().slice(0, 10).replaceAll('-', '')}`;
}

function isoDay(day: Date): string {
  return day.toISOString().slice(0, 10);
}

function dayOfPartition(name: string): Date | undefined {
  const match = /^attempts_p(\d{4})(\d{2})(\d{2})$/.exec(name);
  return match ? new Date(`${match[1]}-${match[2]}-${match[3]}T00:00:00Z`) : undefined;
}

/** The daily partitions that exist now, oldest first. */
export async function listAttemptPartitions(db: Executor): Promise<{ name: string; day: Date }[]> {
  const rows = await db.execute<{ name: string }>(sql`
    select child.relname as name
    from pg_inherits
    join pg_class parent on parent.oid = pg_inherits.inhparent
    join pg_class child on child.oid = pg_inherits.inhrelid
    where parent.relname = 'attempts' and parent.relnamespace = 'public'::regnamespace`);
  return rows
    .map((row) => ({ name: row.name, day: dayOfPartition(row.name) }))
    .filter((partition): partition is { name: string; day: Date } => partition.day !== undefined)
    .sort((a, b) => a.day.getTime() - b.day.getTime());
}

/**
 * Creates the daily partitions for every UTC day overlapping [from, to) that
 * lacks one, moving any of the day's rows out of the default partition in
 * the same transaction. Returns the names created. Safe to call from several
 * processes at once.
 */
export async function ensureAttemptPartitions(db: Executor, range: { from: Date; to: Date }): Promise<string[]> {
  const wanted: Date[] = [];
  for (let day = startOfUtcDay(range.from); day < range.to; day = new Date(day.getTime() + DAY_MS)) wanted.push(day);
  const existing = new Set((await listAttemptPartitions(db)).map((partition) => partition.name));
  const missing = wanted.filter((day) => !existing.has(partitionName(day)));

  const created: string[] = [];
  for (const day of missing) {
    const made = await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${MAINTENANCE_LOCK})`);
      // Wait briefly for locks, never long: a busy moment fails this pass, and the next one tries again.
      await tx.execute(sql`set local lock_timeout = '5s'`);
      // Creating a table is the owner's right, not the application's: a SECURITY DEFINER function
      // (packages/engine/drizzle/0011_add_database_roles.sql) creates the day, moves its rows out of the default
      // partition and attaches it, and answers false when another process made it while we waited.
      const [result] = await tx.execute<{ made: boolean }>(
        sql`select public.holdfast_create_attempt_partition(${isoDay(day)}::date) as made`,
      );
      return result?.made === true;
    });
    if (made) created.push(partitionName(day));
  }
  return created;
}

/**
 * Drops every daily partition whose whole day ended at or before `cutoff`,
 * and deletes the rows of those days that sit in the default partition, with
 * the identities of everything dropped. Returns the names dropped and the
 * number of default-partition rows deleted.
 */
export async function dropAttemptPartitionsBefore(
  db: Executor,
  cutoff: Date,
): Promise<{ dropped: string[]; strayRowsDeleted: number }> {
  const expired = (await listAttemptPartitions(db)).filter(
    (partition) => partition.day.getTime() + DAY_MS <= cutoff.getTime(),
  );
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MAINTENANCE_LOCK})`);
    // Dropping an attached partition locks the whole log for a moment: wait for that moment
    // at most 5 seconds (DETACH CONCURRENTLY is not allowed next to a default partition).
    await tx.execute(sql`set local lock_timeout = '5s'`);
    // The owner's function drops only a partition of the attempt log, and only of a day that has ended.
    for (const partition of expired)
      await tx.execute(sql`select public.holdfast_drop_attempt_partition(${isoDay(partition.day)}::date)`);
    // Whole days only, in the default partition too, and the identities of the attempts dropped
    // go with them: an attempt and its identity are always kept or removed together.
    const dayBoundary = startOfUtcDay(cutoff).toISOString();
    const stray = await tx.execute(sql`delete from attempts_default where started_at < ${dayBoundary}::timestamptz`);
    await tx.execute(sql`delete from attempt_identities where started_at < ${dayBoundary}::timestamptz`);
    // The spans the dropped attempts were made from (packages/engine/src/traces): their days are gone from the log.
    await tx.execute(sql`delete from trace_spans where started_at < ${dayBoundary}::timestamptz`);
    // Agents' runs and the counts of spans received are kept as long as the attempts made from spans.
    await tx.execute(sql`delete from agent_runs where started_at < ${dayBoundary}::timestamptz`);
    await tx.execute(sql`delete from span_ingest_hours where hour < ${dayBoundary}::timestamptz`);
    // A way a step's attempts came that no kept attempt came by any more: its badge goes with them.
    await tx.execute(sql`delete from step_sources where last_seen_at < ${dayBoundary}::timestamptz`);
    await tx.execute(sql`delete from step_cost_sources where last_seen_at < ${dayBoundary}::timestamptz`);
    // The MCP gateways' counts are kept as long as the attempts their calls made.
    await tx.execute(sql`delete from mcp_tool_counts where hour < ${dayBoundary}::timestamptz`);
    return { dropped: expired.map((partition) => partition.name), strayRowsDeleted: stray.count };
  });
}
