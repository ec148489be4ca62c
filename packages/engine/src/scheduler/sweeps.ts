import { lt, sql } from 'drizzle-orm';
import { retryPoolUsage } from '../db/schema';
import {
  DEFAULT_BULK_REDRIVE_STALLED_MS,
  runBulkRedrive,
  stalledBulkRedrives,
} from '../core/dead-letters/bulk-redrive';
import { deleteExpiredApiRequests, deleteExpiredKeys } from '../core/keys/sweep-keys';
import { escalateStaleLocks } from '../core/holds/escalate-stale-locks';
import { escalateUncertainKeys } from '../core/holds/escalate-uncertain-keys';
import { freezeIdleTasks } from '../core/holds/freeze-idle-tasks';
import { reconcileHolds } from '../core/holds/reconcile-holds';
import { nowOf, SWEEPER, type CoreContext } from '../core/kernel/context';
import { timeBucket, withLease } from '../core/leases/leases';
import { sweepStaleSlots } from '../core/slots/force-release';
import { maintainAttemptLog } from '../rollups/retention';
import { rollUpAttempts } from '../rollups/roll-up';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

export interface SweepSettings {
  frozenAfterDays?: number;
  heartbeatGraceMs?: number;
  /** Days of raw attempts kept (whole daily partitions are dropped after). */
  attemptRetentionDays?: number;
  /** Days of hourly and daily rollups kept; longer than the raw log. */
  rollupRetentionDays?: number;
  /** How long an uncertain key waits for a redelivery before it is held for its task's owner (default 15 minutes). */
  uncertainEscalateAfterMs?: number;
  /** How long the sweeper may keep refusing a stale lock before it is held for the run's owner (default 30 minutes). */
  staleLockEscalateAfterMs?: number;
  /** Owner of escalated holds on items that name no task owner (default team:platform). */
  defaultOwner?: string;
  /**
   * How long a running bulk redrive's heartbeat may stay quiet (its instance died) before a sweep
   * carries it on (default 30 seconds).
   */
  bulkRedriveStalledMs?: number;
  /** Tasks the freeze pass freezes per transaction (default 500). */
  freezeBatchSize?: number;
  /**
   * How long one freeze pass keeps taking batches (default 20 s, by the context's clock); a pass
   * that stops with tasks still idle is carried on by the next fire in the same bucket.
   */
  freezeTimeBudgetMs?: number;
}

export const DEFAULT_ATTEMPT_RETENTION_DAYS = 30;
export const DEFAULT_ROLLUP_RETENTION_DAYS = 400;

/** What a pass did: how many items it changed, and a line for the log. */
export interface SweepResult {
  changed: number;
  summary: string;
  /** False when the pass stopped with work left: its bucket stays open for the next fire to carry on. */
  finished?: boolean;
}

interface SweepJob {
  job: string;
  periodMs: number;
  run: (ctx: CoreContext) => Promise<SweepResult>;
}

/** Every scheduled sweep, with how often it is due. Each runs under a lease: once per bucket. */
function sweepJobs(settings: SweepSettings, now: Date): SweepJob[] {
  const attemptRetentionDays = settings.attemptRetentionDays ?? DEFAULT_ATTEMPT_RETENTION_DAYS;
  const rollupRetentionDays = settings.rollupRetentionDays ?? DEFAULT_ROLLUP_RETENTION_DAYS;
  const rawFloor = new Date(now.getTime() - attemptRetentionDays * DAY_MS);
  const stalledMs = settings.bulkRedriveStalledMs ?? DEFAULT_BULK_REDRIVE_STALLED_MS;
  return [
    {
      job: 'roll_up_attempts',
      periodMs: MINUTE_MS,
      run: async (ctx) => {
        const { hoursRolled, hoursReRolled } = await rollUpAttempts(ctx.db, { now, retentionFloor: rawFloor });
        return {
          changed: hoursRolled,
          summary: `${hoursRolled} hour(s) rolled up, ${hoursReRolled} of them again for late rows`,
        };
      },
    },
    {
      job: 'maintain_attempt_log',
      periodMs: 60 * MINUTE_MS,
      run: async (ctx) => {
        const done = await maintainAttemptLog(ctx.db, { now, attemptRetentionDays, rollupRetentionDays });
        const changed =
          done.created.length +
          done.dropped.length +
          done.strayRowsDeleted +
          done.rollupRowsDeleted +
          done.leasesDeleted +
          done.budgetPeriodsDeleted;
        return {
          changed,
          summary:
            `${done.created.length} daily partition(s) created, ${done.dropped.length} dropped past ${attemptRetentionDays} days` +
            `, ${done.rollupRowsDeleted} rollup row(s) and ${done.budgetPeriodsDeleted} spend budget period row(s) past ${rollupRetentionDays} days deleted, ${done.leasesDeleted} old sweep lease(s) deleted`,
        };
      },
    },
    {
      job: 'resume_bulk_redrives',
      // Looked for about as often as a run may stay quiet (every 10 s to a minute), so a run whose
      // instance died is carried on within about twice that, not after a whole minute's bucket.
      periodMs: Math.min(MINUTE_MS, Math.max(10_000, stalledMs)),
      run: async (ctx) => {
        // A bulk redrive whose runner died (a restart mid-run) is carried on from where it stopped,
        // 20 seconds a pass at most, so the other sweeps are never held up for long.
        const stalled = await stalledBulkRedrives(ctx.db, stalledMs);
        for (const id of stalled) await runBulkRedrive(ctx, id, { maxDurationMs: 20_000 });
        return { changed: stalled.length, summary: `${stalled.length} stalled bulk redrive(s) carried on for a while` };
      },
    },
    {
      job: 'delete_expired_keys',
      periodMs: 60 * MINUTE_MS,
      run: async (ctx) => {
        const deleted = await deleteExpiredKeys(ctx);
        const forgotten = await deleteExpiredApiRequests(ctx);
        return {
          changed: deleted + forgotten,
          summary: `${deleted} expired key(s) deleted, ${forgotten} API response(s) past their day forgotten`,
        };
      },
    },
    {
      job: 'release_stale_slots',
      periodMs: 5 * MINUTE_MS,
      run: async (ctx) => {
        const { released, refused } = await sweepStaleSlots(ctx, { heartbeatGraceMs: settings.heartbeatGraceMs, now });
        const kept = refused.map((lock) => `${lock.slot} (${lock.failedGuards.join(', ')})`).join('; ');
        return {
          changed: released.length,
          summary: `${released.length} stale lock(s) released; kept under guard: ${kept || 'none'}`,
        };
      },
    },
    {
      // After the release sweep, so a lock it refused in this same pass is judged on fresh facts.
      job: 'escalate_stale_locks',
      periodMs: 5 * MINUTE_MS,
      run: async (ctx) => {
        const locks = await escalateStaleLocks(ctx, {
          afterMs: settings.staleLockEscalateAfterMs,
          defaultOwner: settings.defaultOwner,
          now,
        });
        return {
          changed: locks.length,
          summary: `${locks.length} stale lock(s) the sweeper kept refusing held for their owners`,
        };
      },
    },
    {
      job: 'escalate_uncertain_keys',
      periodMs: 5 * MINUTE_MS,
      run: async (ctx) => {
        const keys = await escalateUncertainKeys(ctx, {
          afterMs: settings.uncertainEscalateAfterMs,
          defaultOwner: settings.defaultOwner,
          now,
        });
        return {
          changed: keys.length,
          summary: `${keys.length} uncertain key(s) with no redelivery held for their owners`,
        };
      },
    },
    {
      job: 'reconcile_holds',
      periodMs: MINUTE_MS,
      run: async (ctx) => {
        const resolved = await reconcileHolds(ctx);
        return {
          changed: resolved.length,
          summary: `${resolved.length} hold(s) resolved whose condition cleared by itself`,
        };
      },
    },
    {
      job: 'delete_old_retry_pool_usage',
      periodMs: 60 * MINUTE_MS,
      run: async (ctx) => {
        // The pools' windows are at most a day (retry_pools_window_range), so older slices count for nothing.
        const dayAgo = new Date(now.getTime() - DAY_MS);
        const deleted = await ctx.db
          .delete(retryPoolUsage)
          .where(lt(retryPoolUsage.sliceStart, dayAgo))
          .returning({ agent: retryPoolUsage.agent });
        // The breakers' windows are at most an hour (breaker_settings_window_range): older slices count for nothing;
        // a pause's backlog is shown for its last minutes.
        const [other] = await ctx.db.execute<{ breaker_slices: number; pause_waits: number }>(sql`
          with breaker_slices as (
            delete from breaker_slices where slice_start < ${new Date(now.getTime() - 2 * HOUR_MS).toISOString()}::timestamptz
            returning 1),
          pause_waits as (delete from pause_wait_minutes where minute < ${dayAgo.toISOString()}::timestamptz returning 1)
          select (select count(*)::int from breaker_slices) as breaker_slices, (select count(*)::int from pause_waits) as pause_waits`);
        const breakerSlices = other?.breaker_slices ?? 0;
        const pauseWaits = other?.pause_waits ?? 0;
        return {
          changed: deleted.length + breakerSlices + pauseWaits,
          summary: `${deleted.length} retry pool usage slice(s) older than a day, ${breakerSlices} breaker slice(s) older than two hours and ${pauseWaits} paused-begin count(s) older than a day deleted`,
        };
      },
    },
    {
      job: 'freeze_idle_tasks',
      periodMs: 60 * MINUTE_MS,
      run: async (ctx) => {
        const { frozen, finished } = await freezeIdleTasks(ctx, {
          idleDays: settings.frozenAfterDays,
          batchSize: settings.freezeBatchSize,
          timeBudgetMs: settings.freezeTimeBudgetMs,
        });
        const left = finished ? '' : '; more are idle, the next sweep in this bucket carries on';
        return {
          changed: frozen.length,
          summary: `${frozen.length} idle task(s) frozen for their owners${left}`,
          finished,
        };
      },
    },
  ];
}

export interface SweepReport {
  job: string;
  bucket: string;
  /** False when another process already did this bucket's pass. */
  ran: boolean;
  result?: SweepResult;
}

/**
 * Runs each sweep whose current bucket has not been swept yet, as the system
 * sweeper, with the caller's clock and policy. `now` (the clock's time by
 * default) picks the buckets and is the time the escalations judge by.
 */
export async function runDueSweeps(
  ctx: CoreContext,
  settings: SweepSettings = {},
  now = nowOf(ctx),
): Promise<SweepReport[]> {
  const sweeperCtx: CoreContext = { db: ctx.db, actor: SWEEPER, clock: ctx.clock, policy: ctx.policy };
  const reports: SweepReport[] = [];
  for (const { job, periodMs, run } of sweepJobs(settings, now)) {
    const bucket = timeBucket(now, periodMs);
    const outcome = await withLease(sweeperCtx, { job, bucket }, () => run(sweeperCtx), {
      finished: (result) => result.finished !== false,
    });
    reports.push(outcome.ran ? { job, bucket, ran: true, result: outcome.value } : { job, bucket, ran: false });
  }
  return reports;
}
