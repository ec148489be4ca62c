import { eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Transaction } from '../../db/client';
import { deadLetters, holds, type Hold, type HoldResolution } from '../../db/schema';
import { writeAudit } from '../audit/audit-log';
import { authorize } from '../identity/authorization';
import { requireActor, type Actor, type CoreContext } from '../kernel/context';
import { clearedHoldColumns } from './cleared-hold';
import { NotFoundError, StateConflictError } from '@holdfast/protocol/errors';
import { parseInput } from '@holdfast/protocol/validation';
import { clearHoldInput, clearHoldsInput, reassignHoldInput } from '@holdfast/protocol/inputs/hold-input';
import { applyHoldResolution, itemActionFor } from './hold-resolution';

export { decideHoldClear } from './hold-resolution';

export interface HoldChange {
  hold: Hold;
  /** False when the same action had already been done (a double click): nothing changed. */
  changed: boolean;
}

/**
 * Clears a hold: `resume` puts the item back to work, `discard` gives it up,
 * with a note. The hold is re-read under a row lock, the item's own change
 * (see hold-resolution.ts) and the audit record commit with it. Clearing a
 * cleared hold the same way again returns it unchanged; another way is refused.
 */
export async function clearHold(ctx: CoreContext, input: z.input<typeof clearHoldInput>): Promise<HoldChange> {
  const actor = requireActor(ctx);
  const request = parseInput(clearHoldInput, input);
  return ctx.db.transaction((tx) =>
    clearInTransaction(tx, ctx, actor, request.holdId, request.resolution, request.note),
  );
}

/**
 * Clears several holds with one note, all or none: one transaction, holds
 * locked in id order (so two bulk clears cannot deadlock), each checked and
 * audit-logged as a single clear would be. Holds already cleared the same way
 * count as unchanged; one the person may not clear, or cleared the other way,
 * refuses the whole selection with a message naming it.
 */
export async function clearHolds(ctx: CoreContext, input: z.input<typeof clearHoldsInput>): Promise<HoldChange[]> {
  const actor = requireActor(ctx);
  const request = parseInput(clearHoldsInput, input);
  const ids = [...new Set(request.holdIds)].sort((a, b) => a - b);
  return ctx.db.transaction(async (tx) => {
    const changes: HoldChange[] = [];
    for (const id of ids) changes.push(await clearInTransaction(tx, ctx, actor, id, request.resolution, request.note));
    return changes;
  });
}

async function clearInTransaction(
  tx: Transaction,
  ctx: CoreContext,
  actor: Actor,
  holdId: number,
  resolution: HoldResolution,
  note: string,
): Promise<HoldChange> {
  // A dead letter's hold is settled together with the dead letter. Redrives lock the dead
  // letter first and then its hold, so this does too: the same order everywhere, no deadlock.
  const [item] = await tx
    .select({ itemType: holds.itemType, itemId: holds.itemId })
    .from(holds)
    .where(eq(holds.id, holdId));
  if (item?.itemType === 'dead_letter' && /^\d+$/.test(item.itemId)) {
    await tx
      .select({ id: deadLetters.id })
      .from(deadLetters)
      .where(eq(deadLetters.id, Number(item.itemId)))
      .for('update');
  }
  const hold = await lockHold(tx, holdId);
  authorize(ctx, 'hold.clear', { owner: hold.owner });
  // Clearing is also the item's own action: a viewer owning a dead letter's hold may not redrive through it.
  const itemAction = itemActionFor(hold.itemType, resolution);
  if (itemAction) authorize(ctx, itemAction);
  if (hold.status === 'cleared') {
    if (hold.resolution === resolution) return { hold, changed: false };
    throw new StateConflictError(`Hold ${hold.id} was already cleared with ${hold.resolution} by ${hold.clearedBy}`);
  }
  const [cleared] = await tx
    .update(holds)
    .set(clearedHoldColumns(resolution, note, actor))
    .where(eq(holds.id, hold.id))
    .returning();
  if (!cleared) throw new Error('clearHold: the locked hold vanished');
  const itemChange = await applyHoldResolution(tx, actor, cleared, ctx);
  await writeAudit(tx, actor, {
    action: `hold.clear.${resolution}`,
    targetType: 'hold',
    targetId: String(hold.id),
    reason: note,
    before: { status: hold.status, owner: hold.owner },
    after: { status: cleared.status, resolution: cleared.resolution, itemChange },
  });
  return { hold: cleared, changed: true };
}

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
    await writeAudit(tx, actor, {
      action: 'hold.reassign',
      targetType: 'hold',
      targetId: String(hold.id),
      reason: request.note,
      before: { owner: hold.owner },
      after: { owner: reassigned.owner },
    });
    return { hold: reassigned, changed: true };
  });
}

async function lockHold(tx: Transaction, id: number): Promise<Hold> {
  const [hold] = await tx.select().from(holds).where(eq(holds.id, id)).for('update');
  if (!hold) throw new NotFoundError(`No hold ${id}`);
  return hold;
}
