import { and, eq, sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import { idempotencyKeys, taskBudgets, type Hold } from '../../db/schema';
import type { Actor, CoreContext } from '../context';
import { discardInTransaction, lockDeadLetter, redriveInTransaction} from '../dead-letters/redrive';

/**
 * What clearing a hold does to the item it parked, inside the same
 * transaction. Returns a short account for the audit record. Resuming a dead
 * letter redrives it under the redrive brakes of `ctx` (its policy and clock;
 * the defaults without it). There is no override here: overriding the brakes is
 * a deliberate admin redrive on the Dead letters page.
 */
export async function applyHoldResolution(tx: Transaction, actor: Actor, hold: Hold, ctx: CoreContext = { db: tx }): Promise<string> {
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
      const settled = await tx
        .update(idempotencyKeys)
        .set(
          resume
            ? { status: 'failed', lockedUntil: null, errorClass: 'unknown', errorText: `released by ${hold.clearedBy}: ${note}`, updatedAt: sql`now()` }
            : { status: 'completed', lockedUntil: null, result: { resolvedBy: hold.clearedBy, note }, updatedAt: sql`now()` },
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
