import { and, isNotNull, lt, sql } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { leases } from '../db/schema';
import { dropAttemptPartitionsBefore, ensureAttemptPartitions } from '../db/attempt-partitions';
import { deleteFineRollupsBefore, deleteRollupsBefore } from './roll-up';

const DAY_MS = 86_400_000;
/** Daily partitions are made this far ahead, so inserts never wait on one being created. */
const DAYS_AHEAD = 3;

export interface AttemptLogSettings {
  now: Date;
  attemptRetentionDays: number;
  rollupRetentionDays: number;
}

/**
 * Keeps the attempt log's shape: daily partitions for the retained days and a
 * few ahead, raw days past retention dropped whole, five-minute rollups with
 * them, and the other rollups (which outlive the raw log) trimmed to their
 * own, longer retention. Old sweep leases go too.
 */
export async function maintainAttemptLog(db: Executor, settings: AttemptLogSettings) {
  const rawFloor = new Date(settings.now.getTime() - settings.attemptRetentionDays * DAY_MS);
  const created = await ensureAttemptPartitions(db, {
    from: rawFloor,
    to: new Date(settings.now.getTime() + DAYS_AHEAD * DAY_MS),
  });
  const { dropped, strayRowsDeleted } = await dropAttemptPartitionsBefore(db, rawFloor);
  const rollupRowsDeleted =
    (await deleteRollupsBefore(db, new Date(settings.now.getTime() - settings.rollupRetentionDays * DAY_MS))) +
    (await deleteFineRollupsBefore(db, rawFloor));
  // Sweeps take a lease row per time bucket (two a minute); a week of them is history enough.
  // Each job's newest finished pass is kept however old: it is when the job last succeeded, which the
  // sweep-failing alert and the metrics read, so a job failing for a week still shows as failing.
  const leasesDeleted = await db
    .delete(leases)
    .where(
      and(
        isNotNull(leases.completedAt),
        lt(leases.completedAt, sql`now() - interval '7 days'`),
        sql`exists (select 1 from leases newer where newer.job = ${leases.job} and newer.completed_at > ${leases.completedAt})`,
      ),
    );
  // Spend budgets' periods (32 stripes each) are kept as long as the rollups: the budget pages read only the period
  // under way, and a period long over is history the attempt log's rollups hold too.
  const budgetPeriodsDeleted = await db.execute(sql`
    delete from spend_budget_usage
    where period_start < ${new Date(settings.now.getTime() - settings.rollupRetentionDays * DAY_MS).toISOString()}::timestamptz`);
  return {
    created,
    dropped,
    strayRowsDeleted,
    rollupRowsDeleted,
    leasesDeleted: leasesDeleted.count,
    budgetPeriodsDeleted: budgetPeriodsDeleted.count,
  };
}
