import { and, asc, eq, isNull, lte } from 'drizzle-orm';
import { runs, slotLocks, taskBudgets } from '../../db/schema';
import { nowOf, type CoreContext } from '../kernel/context';
import type { ReleaseGuard } from '../slots/force-release';
import { DEFAULT_ESCALATION_OWNER, escalateEach, type EscalatedItem, type EscalationOptions } from './escalate-options';

export const DEFAULT_STALE_LOCK_ESCALATE_AFTER_MS = 30 * 60_000;

/** Each release guard that can fail, as the person reading the hold needs it said. */
const failedGuardMeaning: Record<ReleaseGuard, string> = {
  past_ttl: 'the lock is not past its time to live',
  holder_run_finished: 'its run is neither finished nor silent past the heartbeat grace',
  no_evidence: 'evidence of the side effect exists for the slot',
  kill_switch_off: 'the stale_lock_release kill switch is engaged',
};

/**
 * Holds stale locks the sweeper keeps refusing to release. The release sweep
 * notes since when it has refused a lock and which guards failed
 * (release_refused_since, release_refused_guards); a lock still held, still
 * past its time to live and refused for `afterMs` gets a `stale_lock` hold for
 * its run's task owner (or the default owner) naming those guards, and
 * `escalated_at` is set in the same transaction: once per holder however often
 * this runs (a new holder resets it).
 */
export async function escalateStaleLocks(ctx: CoreContext, options: EscalationOptions = {}): Promise<EscalatedItem[]> {
  const now = options.now ?? nowOf(ctx);
  const cutoff = new Date(now.getTime() - (options.afterMs ?? DEFAULT_STALE_LOCK_ESCALATE_AFTER_MS));
  const l = slotLocks;
  const isUnescalatedRefused = and(
    isNull(l.releasedAt),
    lte(l.expiresAt, now),
    lte(l.releaseRefusedSince, cutoff),
    isNull(l.escalatedAt),
  );

  const refused = await ctx.db
    .select({
      slot: l.slot,
      holderRunKey: l.holderRunKey,
      fencingToken: l.fencingToken,
      expiresAt: l.expiresAt,
      refusedSince: l.releaseRefusedSince,
      failedGuards: l.releaseRefusedGuards,
      taskOwner: taskBudgets.owner,
    })
    .from(l)
    .leftJoin(runs, eq(runs.runKey, l.holderRunKey))
    .leftJoin(taskBudgets, eq(taskBudgets.taskId, runs.taskId))
    .where(isUnescalatedRefused)
    .orderBy(asc(l.releaseRefusedSince))
    .limit(options.limit ?? 500);

  return escalateEach(ctx, refused, {
    // Re-checked by the UPDATE, for this holder's token: the lock may have been released or taken since the scan.
    mark: async (tx, lock) =>
      (
        await tx
          .update(l)
          .set({ escalatedAt: now })
          .where(and(eq(l.slot, lock.slot), eq(l.fencingToken, lock.fencingToken), isUnescalatedRefused))
          .returning({ slot: l.slot })
      ).length > 0,
    hold: (lock) => ({
      itemType: 'slot',
      itemId: lock.slot,
      reason: 'stale_lock',
      owner: lock.taskOwner ?? options.defaultOwner ?? DEFAULT_ESCALATION_OWNER,
      detail: describeStaleLock(lock),
    }),
  });
}

function describeStaleLock(lock: {
  slot: string;
  holderRunKey: string;
  fencingToken: number;
  expiresAt: Date;
  refusedSince: Date | null;
  failedGuards: string[] | null;
}): string {
  const guards = (lock.failedGuards ?? []).map(
    (guard) => `${guard} (${failedGuardMeaning[guard as ReleaseGuard] ?? 'failed'})`,
  );
  return (
    `Slot ${lock.slot} is held by run ${lock.holderRunKey} (token ${lock.fencingToken}) past its time to live since ${lock.expiresAt.toISOString()}, ` +
    `and the sweeper has refused to release it since ${lock.refusedSince?.toISOString() ?? 'an unknown time'} because these guards fail: ` +
    `${guards.join('; ') || 'unknown'}. Check the run and the slot's evidence, then release the lock on the Locks page or leave it held.`
  );
}
