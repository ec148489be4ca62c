import { runBulkRedrive, stalledBulkRedrives } from './dead-letters/bulk-redrive';
import { deleteExpiredApiRequests, deleteExpiredKeys } from './keys/sweep-keys';
import { freezeIdleTasks } from './holds/freeze-idle-tasks';
import { SWEEPER, type CoreContext } from './context';
import { timeBucket, withLease } from './leases';
import { sweepStaleSlots } from './slots/force-release';
import { maintainAttemptLog } from '../rollups/retention';
import { rollUpAttempts } from '../rollups/roll-up';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

export interface SweepSettings {
  frozenAfterDays?: number;
  heartbeatGraceMs?: number;
  /** Days of raw attempts kept (whole daily partitions are dropped after). */
  attemptRetentionDays?: number;
  /** Days of hourly and daily rollups kept; longer than the raw log. */
  rollupRetentionDays?: number;
}

export const DEFAULT_ATTEMPT_RETENTION_DAYS = 30;
export const DEFAULT_ROLLUP_RETENTION_DAYS = 400;

/** What a pass did: how many items it changed, and a line for the log. */
export interface SweepResult {
  changed: number;
  summary: string;
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
  return [
    {
      job: 'roll_up_attempts',
      periodMs: MINUTE_MS,
      run: async (ctx) => {
        const { hoursRolled, hoursReRolled } = await rollUpAttempts(ctx.db, { now, retentionFloor: rawFloor });
        return { changed: hoursRolled, summary: `${hoursRolled} hour(s) rolled up, ${hoursReRolled} of them again for late rows` };
      },
    },
    {
      job: 'maintain_attempt_log',
      periodMs: 60 * MINUTE_MS,
      run: async (ctx) => {
        const done = await maintainAttemptLog(ctx.db, { now, attemptRetentionDays, rollupRetentionDays });
        const changed = done.created.length + done.dropped.length + done.strayRowsDeleted + done.rollupRowsDeleted + done.leasesDeleted;
        return {
          changed,
          summary: `${done.created.length} daily partition(s) created, ${done.dropped.length} dropped past ${attemptRetentionDays} days` +
            `, ${done.rollupRowsDeleted} rollup row(s) past ${rollupRetentionDays} days deleted, ${done.leasesDeleted} old sweep lease(s) deleted`,
        };
      },
    },
    {
      job: 'resume_bulk_redrives',
      periodMs: MINUTE_MS,
      run: async (ctx) => {
        // A bulk redrive whose runner died (a restart mid-run) is carried on from where it stopped,
        // 20 seconds a pass at most, so the other sweeps are never held up for long.
        const stalled = await stalledBulkRedrives(ctx.db, 30_000);
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
        return { changed: deleted + forgotten, summary: `${deleted} expired key(s) deleted, ${forgotten} API response(s) past their day forgotten` };
      },
    },
    {
      job: 'release_stale_slots',
      periodMs: 5 * MINUTE_MS,
      run: async (ctx) => {
        const { released, refused } = await sweepStaleSlots(ctx, { heartbeatGraceMs: settings.heartbeatGraceMs });
        const kept = refused.map((lock) => `${lock.slot} (${lock.failedGuards.join(', ')})`).join('; ');
        return { changed: released.length, summary: `${released.length} stale lock(s) released; kept under guard: ${kept || 'none'}` };
      },
    },
    {
      job: 'freeze_idle_tasks',
      periodMs: 60 * MINUTE_MS,
      run: async (ctx) => {
        const frozen = await freezeIdleTasks(ctx, { idleDays: settings.frozenAfterDays });
        return { changed: frozen.length, summary: `${frozen.length} idle task(s) frozen for their owners` };
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

/** Runs each sweep whose current bucket has not been swept yet, as the system sweeper. */
export async function runDueSweeps(ctx: CoreContext, settings: SweepSettings = {}, now = new Date()): Promise<SweepReport[]> {
  const sweeperCtx: CoreContext = { db: ctx.db, actor: SWEEPER };
  const reports: SweepReport[] = [];
  for (const { job, periodMs, run } of sweepJobs(settings, now)) {
    const bucket = timeBucket(now, periodMs);
    const outcome = await withLease(sweeperCtx, { job, bucket }, () => run(sweeperCtx));
    reports.push(outcome.ran ? { job, bucket, ran: true, result: outcome.value } : { job, bucket, ran: false });
  }
  return reports;
}
