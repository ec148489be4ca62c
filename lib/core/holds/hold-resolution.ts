import { and, eq, sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import { idempotencyKeys, taskBudgets, type Hold, type HoldItemType, type HoldResolution } from '../../db/schema';
import { decide, type Action, type Decision } from '../identity/authorization';
import type { Actor, CoreContext } from '../kernel/context';
import { discardInTransaction, lockDeadLetter, redriveInTransaction } from '../dead-letters/redrive';
import { StateConflictError } from '@holdfast/protocol/errors';

/**
 * What clearing a hold does to its item is that item's own action, and needs
 * that action's permission on top of the hold's: an owner may not do through
 * a hold what their role forbids. Resuming a dead letter's hold is a redrive,
 * discarding it a discard; releasing or settling a key decides whether a side
 * effect runs again (key.resolve). Tasks and slots need nothing more: an owner
 * resumes or discards their own task's work, and a slot's hold changes no lock.
 */
export function itemActionFor(itemType: HoldItemType, resolution: HoldResolution): Action | undefined {
  switch (itemType) {
    case 'dead_letter':
      return resolution === 'resume' ? 'dead_letter.redrive' : 'dead_letter.discard';
    case 'key':
      return 'key.resolve';
    case 'task':
    case 'slot':
      return undefined;
  }
}

/**
 * Whether the actor may clear this hold this way (or, without a resolution,
 * some way): the hold's own rule (owners, roles) and then its item's action.
 * The console may ask this to show or hide a hold's Clear button.
 */
export function decideHoldClear(
  actor: Actor,
  hold: Pick<Hold, 'owner' | 'itemType'>,
  resolution?: HoldResolution,
): Decision {
  const clear = decide(actor, 'hold.clear', { owner: hold.owner });
  if (!clear.allowed) return clear;
  const decisions = (resolution ? [resolution] : (['resume', 'discard'] as const)).map((way) => {
    const action = itemActionFor(hold.itemType, way);
    return action ? decide(actor, action) : clear;
  });
  return decisions.find((decision) => decision.allowed) ?? decisions[0]!;
}

/**
 * What clearing a hold does to the item it parked, inside the same
 * transaction. Returns a short account for the audit record. Resuming a dead
 * letter redrives it under the redrive brakes of `ctx` (its policy and clock;
 * the defaults without it). There is no override here: overriding the brakes is
 * a deliberate admin redrive on the Dead letters page.
 */
export async function applyHoldResolution(
  tx: Transaction,
  actor: Actor,
  hold: Hold,
  ctx: CoreContext = { db: tx },
): Promise<string> {
  const resume = hold.resolution === 'resume';
  const note = hold.resolutionNote ?? '';
  switch (hold.itemType) {
    case 'dead_letter': {
      const deadLetter = await lockDeadLetter(tx, Number(hold.itemId));
      if (resume) {
        const { redrive } = await redriveInTransaction(tx, ctx, actor, deadLetter, { reason: note });
        return `redriven as ${redrive.outboxKey}`;
      }
      await discardInTransaction(tx, actor, deadLetter, note);
      return 'dead letter discarded';
    }
    case 'key': {
      // An uncertain key: the person checked the downstream. Resume means the side
      // effect did not happen (run it again); discard means leave it as done.
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
    }
    case 'task': {
      await tx
        .update(taskBudgets)
        .set({ status: resume ? 'active' : 'discarded', updatedAt: sql`now()` })
        .where(eq(taskBudgets.taskId, hold.itemId));
      return resume ? 'task active again' : 'task discarded';
    }
    case 'slot':
      return 'no change to the slot';
  }
}

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
