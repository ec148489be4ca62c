import { and, eq, sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import { idempotencyKeys, type Hold } from '../../db/schema';
import { StateConflictError } from '@holdfast/protocol/errors';
import type { HeldItem } from './held-item';

/**
 * An uncertain key: the person checked the downstream. Resume means the side effect did not happen (run it
 * again); discard means leave it as done. Either decides whether a side effect runs a second time, so it needs
 * `key.resolve` (responders and admins, as a forced lock release).
 */
export const heldKey: HeldItem = {
  action: () => 'key.resolve',
  async resolve(tx, _actor, hold) {
    const resume = hold.resolution === 'resume';
    const note = hold.resolutionNote ?? '';
    await refuseWhileClaimLive(tx, hold);
    const settled = await tx
      .update(idempotencyKeys)
      .set(
        resume
          ? {
              status: 'failed',
              lockedUntil: null,
              errorClass: 'unknown',
              errorText: `released by ${hold.clearedBy}: ${note}`,
              updatedAt: sql`now()`,
            }
          : {
              status: 'completed',
              lockedUntil: null,
              result: { resolvedBy: hold.clearedBy, note },
              updatedAt: sql`now()`,
            },
      )
      .where(and(eq(idempotencyKeys.key, hold.itemId), eq(idempotencyKeys.status, 'in_progress')))
      .returning({ key: idempotencyKeys.key });
    return settled.length > 0 ? (resume ? 'key released to run again' : 'key marked done') : 'key already settled';
  },
};

/**
 * A key whose claim has not expired has a live holder that may be running the
 * step right now: releasing it would let a second attempt run beside it, and
 * marking it done would hide the first one's outcome. Refused (the caller's
 * transaction rolls back, so nothing is written); a person decides after the
 * claim expires, when the outcome really is uncertain.
 */
async function refuseWhileClaimLive(tx: Transaction, hold: Hold): Promise<void> {
  const [key] = await tx
    .select({
      status: idempotencyKeys.status,
      lockedUntil: idempotencyKeys.lockedUntil,
      live: sql<boolean>`coalesce(${idempotencyKeys.lockedUntil} > now(), false)`,
    })
    .from(idempotencyKeys)
    .where(eq(idempotencyKeys.key, hold.itemId))
    .for('update');
  if (key?.status === 'in_progress' && key.live) {
    throw new StateConflictError(
      `Key "${hold.itemId}" is still claimed until ${key.lockedUntil?.toISOString()}: its holder may be running the step now, ` +
        `so it can be neither released nor marked done; decide after the claim expires`,
    );
  }
}
