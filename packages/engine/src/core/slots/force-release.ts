import { and, eq, isNull, lte, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Executor, Transaction } from '../../db/client';
import { slotLocks, type SlotLock } from '../../db/schema';
import { writeAudit } from '../audit/audit-log';
import { authorize } from '../identity/authorization';
import { type Actor, actorLabel, nowOf, SWEEPER, type CoreContext } from '../kernel/context';
import { GuardFailedError, NotFoundError, StateConflictError } from '@holdfast/protocol/errors';
import { parseInput } from '@holdfast/protocol/validation';
import { DEFAULT_HEARTBEAT_GRACE_MS, forceReleaseInput } from './force-release-input';

export { DEFAULT_HEARTBEAT_GRACE_MS } from './force-release-input';

export const releaseGuards = ['past_ttl', 'holder_run_finished', 'no_evidence', 'kill_switch_off'] as const;
export type ReleaseGuard = (typeof releaseGuards)[number];

export type ForceReleaseResult =
  | { released: true; lock: SlotLock }
  | { released: false; alreadyReleased: true; lock: SlotLock };

/**
 * Releases a stale slot lock only when every guard holds, checked inside the
 * transaction that releases (the lock row is locked first): the holder is past
 * its time to live; its run is finished, or silent past the heartbeat grace;
 * no evidence of the side effect exists from that run; the kill switch is off.
 * Otherwise GUARD_FAILED names each failed guard. The release and its audit
 * record commit together. Repeating a release that happened returns it again.
 */
export async function forceReleaseSlot(
  ctx: CoreContext,
  input: z.input<typeof forceReleaseInput>,
): Promise<ForceReleaseResult> {
  const actor = authorize(ctx, 'slot.force_release');
  const request = parseInput(forceReleaseInput, input);

  return ctx.db.transaction(async (tx) => {
    const lock = await lockSlotSeen(tx, request);
    if (lock.releasedAt) return { released: false, alreadyReleased: true, lock };

    // Every guard is read from the database's own clock and rows, inside this transaction.
    const [facts] = await readReleaseGuards(tx, { slots: [lock.slot], heartbeatGraceMs: request.heartbeatGraceMs });
    const failed = facts?.failedGuards ?? [...releaseGuards];
    if (failed.length > 0) {
      throw new GuardFailedError(`Slot "${lock.slot}" was not released: ${failed.join(', ')} did not hold`, failed);
    }

    return releaseLockedSlot(tx, actor, lock, {
      action: actor.type === 'system' ? 'slot.auto_release' : 'slot.force_release',
      reason: request.reason,
      before: { holderRunKey: lock.holderRunKey, fencingToken: lock.fencingToken, expiresAt: lock.expiresAt },
    });
  });
}

/**
 * Releases a lock row the caller holds locked (lockSlotSeen, or the sweep's own read), with its audit record in the
 * same transaction: the guarded release, the sweep's automatic one and the admin's override end the same way.
 */
export async function releaseLockedSlot(
  tx: Transaction,
  actor: Actor,
  lock: SlotLock,
  audit: { action: string; reason: string; before: Record<string, unknown> },
): Promise<ForceReleaseResult> {
  const [released] = await tx
    .update(slotLocks)
    .set({
      releasedAt: sql`now()`,
      releasedBy: actorLabel(actor),
      releaseRefusedSince: null,
      releaseRefusedGuards: null,
    })
    .where(eq(slotLocks.slot, lock.slot))
    .returning();
  if (!released) throw new Error(`releaseLockedSlot: the locked row of "${lock.slot}" vanished`);
  await writeAudit(tx, actor, {
    action: audit.action,
    targetType: 'slot',
    targetId: lock.slot,
    reason: audit.reason,
    before: audit.before,
    after: { releasedAt: released.releasedAt, releasedBy: released.releasedBy },
  });
  return { released: true, lock: released };
}

/**
 * Locks a slot's lock row for a person's release, at the token they saw: a lock re-acquired since is refused
 * (STATE_CONFLICT), a slot never locked is NOT_FOUND. Shared by the guarded release and the admin's override.
 */
export async function lockSlotSeen(tx: Executor, seen: { slot: string; fencingToken: number }): Promise<SlotLock> {
  const [lock] = await tx.select().from(slotLocks).where(eq(slotLocks.slot, seen.slot)).for('update');
  if (!lock) throw new NotFoundError(`Slot "${seen.slot}" has no lock`);
  if (lock.fencingToken !== seen.fencingToken) {
    throw new StateConflictError(
      `Slot "${seen.slot}" is now at token ${lock.fencingToken}, not ${seen.fencingToken}: it changed hands since you looked`,
    );
  }
  return lock;
}

/** The facts behind each release guard of a held lock, as the console shows them and the release re-checks them. */
export interface ReleaseGuardFacts {
  slot: string;
  holderRunKey: string;
  fencingToken: number;
  acquiredAt: Date;
  expiresAt: Date;
  pastTtl: boolean;
  /** Null when the holder's run is unknown to Holdfast (then it cannot be shown finished). */
  runStatus: string | null;
  /** The agent whose run holds it (null with an unknown run): whose owner to ask. */
  runAgent: string | null;
  runHeartbeatAt: Date | null;
  runDone: boolean;
  evidenceCount: number;
  latestEvidence: string | null;
  killSwitchEngaged: boolean;
  failedGuards: ReleaseGuard[];
  /** Since when the sweeper has refused to release it (null: never refused, or released since). */
  releaseRefusedSince: Date | null;
  /** When it was escalated to a person as a `stale_lock` hold (once per holder). */
  escalatedAt: Date | null;
}

/**
 * Reads the guard facts of held locks (the given slots, or every held one),
 * stale ones first. Used inside forceReleaseSlot's transaction, after the
 * lock row is locked, and by the Locks page to show why a release would pass.
 */
export async function readReleaseGuards(
  db: Executor,
  options: { slots?: string[]; heartbeatGraceMs?: number; limit?: number } = {},
): Promise<ReleaseGuardFacts[]> {
  const grace = `${options.heartbeatGraceMs ?? DEFAULT_HEARTBEAT_GRACE_MS} milliseconds`;
  const rows = await db.execute<{
    slot: string;
    holder_run_key: string;
    fencing_token: string;
    acquired_at: Date;
    expires_at: Date;
    past_ttl: boolean;
    run_status: string | null;
    run_agent: string | null;
    run_heartbeat_at: Date | null;
    run_done: boolean;
    evidence_count: number;
    latest_evidence: string | null;
    switch_engaged: boolean;
    release_refused_since: Date | null;
    escalated_at: Date | null;
  }>(sql`
    select lock.slot, lock.holder_run_key, lock.fencing_token, lock.acquired_at, lock.expires_at,
      lock.release_refused_since, lock.escalated_at,
      lock.expires_at <= now() as past_ttl,
      run.status as run_status, run.agent as run_agent, run.heartbeat_at as run_heartbeat_at,
      coalesce(run.status <> 'running' or run.heartbeat_at < now() - ${grace}::interval, false) as run_done,
      (select count(*)::int from slot_evidence evidence where evidence.slot = lock.slot and evidence.run_key = lock.holder_run_key) as evidence_count,
      (select evidence.ref from slot_evidence evidence where evidence.slot = lock.slot and evidence.run_key = lock.holder_run_key
        order by evidence.recorded_at desc limit 1) as latest_evidence,
      coalesce((select engaged from kill_switches where name = 'stale_lock_release'), false) as switch_engaged
    from slot_locks lock
    left join runs run on run.run_key = lock.holder_run_key
    where lock.released_at is null ${options.slots ? sql`and lock.slot in ${options.slots}` : sql``}
    order by lock.expires_at <= now() desc, lock.expires_at asc
    limit ${options.limit ?? 500}`);
  return rows.map((row) => {
    const failedGuards: ReleaseGuard[] = [];
    if (!row.past_ttl) failedGuards.push('past_ttl');
    if (!row.run_done) failedGuards.push('holder_run_finished');
    if (row.evidence_count > 0) failedGuards.push('no_evidence');
    if (row.switch_engaged) failedGuards.push('kill_switch_off');
    return {
      slot: row.slot,
      holderRunKey: row.holder_run_key,
      fencingToken: Number(row.fencing_token),
      acquiredAt: new Date(row.acquired_at),
      expiresAt: new Date(row.expires_at),
      pastTtl: row.past_ttl,
      runStatus: row.run_status,
      runAgent: row.run_agent,
      runHeartbeatAt: row.run_heartbeat_at ? new Date(row.run_heartbeat_at) : null,
      runDone: row.run_done,
      evidenceCount: row.evidence_count,
      latestEvidence: row.latest_evidence,
      killSwitchEngaged: row.switch_engaged,
      failedGuards,
      releaseRefusedSince: row.release_refused_since ? new Date(row.release_refused_since) : null,
      escalatedAt: row.escalated_at ? new Date(row.escalated_at) : null,
    };
  });
}

export interface StaleSlotSweep {
  released: string[];
  refused: { slot: string; failedGuards: string[] }[];
}

/**
 * The automatic release: every held lock past its TTL goes through the same
 * guard, as the sweeper. A refusal is noted on the lock (since when, the
 * first time, and which guards failed, each time), so a lock the sweeper keeps
 * refusing can be escalated to a person (escalate-stale-locks.ts); a release clears it.
 */
export async function sweepStaleSlots(
  ctx: CoreContext,
  options: { heartbeatGraceMs?: number; limit?: number; now?: Date } = {},
): Promise<StaleSlotSweep> {
  const now = options.now ?? nowOf(ctx);
  const stale = await ctx.db
    .select({ slot: slotLocks.slot, fencingToken: slotLocks.fencingToken })
    .from(slotLocks)
    .where(and(isNull(slotLocks.releasedAt), lte(slotLocks.expiresAt, sql`now()`)))
    .limit(options.limit ?? 500);
  const outcome: StaleSlotSweep = { released: [], refused: [] };
  for (const lock of stale) {
    try {
      await forceReleaseSlot(
        { db: ctx.db, actor: SWEEPER },
        {
          ...lock,
          reason: 'stale lock: past its TTL, its run finished or silent, no evidence',
          heartbeatGraceMs: options.heartbeatGraceMs,
        },
      );
      outcome.released.push(lock.slot);
    } catch (error) {
      if (error instanceof GuardFailedError) {
        await noteRefusal(ctx.db, lock, error.failedGuards, now);
        outcome.refused.push({ slot: lock.slot, failedGuards: error.failedGuards });
      } else if (!(error instanceof StateConflictError)) throw error; // re-acquired meanwhile: nothing to do
    }
  }
  return outcome;
}

/** Notes a refused release on the lock, for this holder's token only (it may have been taken since). */
async function noteRefusal(
  db: Executor,
  lock: { slot: string; fencingToken: number },
  failedGuards: string[],
  now: Date,
): Promise<void> {
  await db
    .update(slotLocks)
    .set({
      releaseRefusedSince: sql`coalesce(${slotLocks.releaseRefusedSince}, ${now.toISOString()}::timestamptz)`,
      releaseRefusedGuards: failedGuards,
    })
    .where(
      and(eq(slotLocks.slot, lock.slot), eq(slotLocks.fencingToken, lock.fencingToken), isNull(slotLocks.releasedAt)),
    );
}
