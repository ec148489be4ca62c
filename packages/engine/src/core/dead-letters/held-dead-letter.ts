import { eq } from 'drizzle-orm';
import { deadLetters } from '../../db/schema';
import type { HeldItem } from '../holds/held-item';
import { discardInTransaction, lockDeadLetter, redriveInTransaction } from './redrive';

/**
 * A dead letter's hold: resuming it is a redrive (under the redrive brakes of the clear's context, its policy
 * and clock; no override here: overriding the brakes is a deliberate admin redrive on the Dead letters page),
 * discarding it a discard, each needing its own permission.
 */
export const heldDeadLetter: HeldItem = {
  action: (resolution) => (resolution === 'resume' ? 'dead_letter.redrive' : 'dead_letter.discard'),
  // Redrives lock the dead letter first and then its hold, so a clear does too: the same order everywhere.
  async lockBeforeHold(tx, itemId) {
    if (!/^\d+$/.test(itemId)) return;
    await tx
      .select({ id: deadLetters.id })
      .from(deadLetters)
      .where(eq(deadLetters.id, Number(itemId)))
      .for('update');
  },
  async resolve(tx, actor, hold, ctx) {
    const deadLetter = await lockDeadLetter(tx, Number(hold.itemId));
    if (hold.resolution === 'resume') {
      const { redrive } = await redriveInTransaction(tx, ctx, actor, deadLetter, { reason: hold.resolutionNote ?? '' });
      return `redriven as ${redrive.outboxKey}`;
    }
    await discardInTransaction(tx, actor, deadLetter, hold.resolutionNote ?? '');
    return 'dead letter discarded';
  },
};
