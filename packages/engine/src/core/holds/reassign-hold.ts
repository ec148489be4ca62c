import { eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Transaction } from '../../db/client';
import { holds, type Hold } from '../../db/schema';
import { auditTrail } from '../audit/audit-trail';
import { authorize } from '../identity/authorization';
import { requireActor, type CoreContext } from '../kernel/context';
import { NotFoundError, StateConflictError } from '@holdfast/protocol/errors';
import { parseInput } from '@holdfast/protocol/validation';
import { reassignHoldInput } from '@holdfast/protocol/inputs/hold-input';

export interface HoldChange {
  hold: Hold;
  /** False when the same action had already been done (a double click): nothing changed. */
  changed: boolean;
}

/** A reassignment's record keeps whose the hold was and whose it is. */
const ownerAudit = auditTrail(
  'hold',
  (hold: Hold) => hold.id,
  (hold) => ({ owner: hold.owner }),
);
/** Gives an open hold to another person or team, with a note; audit-logged. */
export async function reassignHold(ctx: CoreContext, input: z.input<typeof reassignHoldInput>): Promise<HoldChange> {
  const actor = requireActor(ctx);
  const request = parseInput(reassignHoldInput, input);
  return ctx.db.transaction(async (tx) => {
    const hold = await lockHold(tx, request.holdId);
    authorize(ctx, 'hold.reassign', { owner: hold.owner });
    if (hold.status !== 'open')
      throw new StateConflictError(`Hold ${hold.id} is cleared; only open holds change owner`);
    if (hold.owner === request.owner) return { hold, changed: false };
    const [reassigned] = await tx
      .update(holds)
      .set({ owner: request.owner, updatedAt: sql`now()` })
      .where(eq(holds.id, hold.id))
      .returning();
    if (!reassigned) throw new Error('reassignHold: the locked hold vanished');
    await ownerAudit(tx, actor, 'hold.reassign', { reason: request.note, before: hold, after: reassigned });
    return { hold: reassigned, changed: true };
  });
}

/** Reads a hold under a row lock, for a change to it. */
export async function lockHold(tx: Transaction, id: number): Promise<Hold> {
  const [hold] = await tx.select().from(holds).where(eq(holds.id, id)).for('update');
  if (!hold) throw new NotFoundError(`No hold ${id}`);
  return hold;
}
