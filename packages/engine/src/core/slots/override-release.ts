import { eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { slotLocks } from '../../db/schema';
import { writeAudit } from '../audit/audit-log';
import { authorize } from '../identity/authorization';
import { actorLabel, type CoreContext } from '../kernel/context';
import { GuardFailedError } from '@holdfast/protocol/errors';
import { parseInput } from '@holdfast/protocol/validation';
import { type ForceReleaseResult, lockSlotSeen, readReleaseGuards } from './force-release';
import { overrideReleaseInput } from './override-release-input';

/**
 * An admin releases a stale lock that its guards refuse: the holder's run still looks alive, evidence of the side
 * effect exists, or the kill switch is engaged. Only a lock past its time to live: one within it is not stuck. The
 * audit record keeps which guards were overridden and the evidence seen, beside the admin's reason, in the
 * release's transaction. Repeating a release that happened returns it again.
 */
export async function overrideReleaseSlot(
  ctx: CoreContext,
  input: z.input<typeof overrideReleaseInput>,
): Promise<ForceReleaseResult> {
  const actor = authorize(ctx, 'slot.override_release');
  const request = parseInput(overrideReleaseInput, input);

  return ctx.db.transaction(async (tx) => {
    const lock = await lockSlotSeen(tx, request);
    if (lock.releasedAt) return { released: false, alreadyReleased: true, lock };
    const [facts] = await readReleaseGuards(tx, { slots: [lock.slot] });
    if (!facts?.pastTtl) {
      throw new GuardFailedError(`Slot "${lock.slot}" is within its time to live: it is not stuck`, ['past_ttl']);
    }

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
    if (!released) throw new Error('overrideReleaseSlot: the locked row vanished');
    await writeAudit(tx, actor, {
      action: 'slot.override_release',
      targetType: 'slot',
      targetId: lock.slot,
      reason: request.reason,
      before: {
        holderRunKey: lock.holderRunKey,
        fencingToken: lock.fencingToken,
        expiresAt: lock.expiresAt,
        overriddenGuards: facts.failedGuards,
        evidenceCount: facts.evidenceCount,
        latestEvidence: facts.latestEvidence,
      },
      after: { releasedAt: released.releasedAt, releasedBy: released.releasedBy },
    });
    return { released: true, lock: released };
  });
}
