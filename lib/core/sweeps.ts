import { deleteExpiredKeys } from './keys/sweep-keys';
import { freezeIdleTasks } from './holds/freeze-idle-tasks';
import { SWEEPER, type CoreContext } from './context';
import { timeBucket, withLease } from './leases';
import { sweepStaleSlots } from './slots/force-release';

const MINUTE_MS = 60_000;

export interface SweepSettings {
  frozenAfterDays?: number;
  heartbeatGraceMs?: number;
}

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
function sweepJobs(settings: SweepSettings): SweepJob[] {
  return [
    {
      job: 'delete_expired_keys',
      periodMs: 60 * MINUTE_MS,
      run: async (ctx) => {
        const deleted = await deleteExpiredKeys(ctx);
        return { changed: deleted, summary: `${deleted} expired key(s) deleted` };
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
  for (const { job, periodMs, run } of sweepJobs(settings)) {
    const bucket = timeBucket(now, periodMs);
    const outcome = await withLease(sweeperCtx, { job, bucket }, () => run(sweeperCtx));
    reports.push(outcome.ran ? { job, bucket, ran: true, result: outcome.value } : { job, bucket, ran: false });
  }
  return reports;
}
