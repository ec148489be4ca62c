import { eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Transaction } from '../../db/client';
import { holds, type HoldResolution } from '../../db/schema';
import { writeAudit } from '../audit/audit-log';
import { clearedHoldColumns } from '../holds/cleared-hold';
import { lockHold, type HoldChange } from '../holds/reassign-hold';
import { authorize } from '../identity/authorization';
import { requireActor, type Actor, type CoreContext } from '../kernel/context';
import { StateConflictError } from '@holdfast/protocol/errors';
import { parseInput } from '@holdfast/protocol/validation';
import { clearHoldInput, clearHoldsInput } from '@holdfast/protocol/inputs/hold-input';
import { heldItems } from './held-items';

/**
 * Clears a hold: `resume` puts the item back to work, `discard` gives it up,
 * with a note. The hold is re-read under a row lock, the item's own change
 * (held-items.ts) and the audit record commit with it. Clearing a
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
  const [item] = await tx
    .select({ itemType: holds.itemType, itemId: holds.itemId })
    .from(holds)
    .where(eq(holds.id, holdId));
  if (item) await heldItems[item.itemType].lockBeforeHold?.(tx, item.itemId);
  const hold = await lockHold(tx, holdId);
  authorize(ctx, 'hold.clear', { owner: hold.owner });
  // Clearing is also the item's own action: a viewer owning a dead letter's hold may not redrive through it.
  const held = heldItems[hold.itemType];
  const itemAction = held.action(resolution);
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
  const itemChange = await held.resolve(tx, actor, cleared, ctx);
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
