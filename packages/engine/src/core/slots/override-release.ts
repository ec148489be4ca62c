import type { z } from 'zod';
import { authorize } from '../identity/authorization';
import type { CoreContext } from '../kernel/context';
import { GuardFailedError } from '@holdfast/protocol/errors';
import { parseInput } from '@holdfast/protocol/validation';
import { type ForceReleaseResult, lockSlotSeen, readReleaseGuards, releaseLockedSlot } from './force-release';
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

    return releaseLockedSlot(tx, actor, lock, {
      action: 'slot.override_release',
      reason: request.reason,
      before: {
        holderRunKey: lock.holderRunKey,
        fencingToken: lock.fencingToken,
        expiresAt: lock.expiresAt,
        overriddenGuards: facts.failedGuards,
        evidenceCount: facts.evidenceCount,
        latestEvidence: facts.latestEvidence,
      },
    });
  });
}
