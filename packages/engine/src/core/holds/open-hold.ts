import { and, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { holds, type Hold } from '../../db/schema';
import { writeAudit } from '../audit/audit-log';
import { authorize } from '../identity/authorization';
import { actorLabel, type CoreContext } from '../kernel/context';
import { parseInput } from '@holdfast/protocol/validation';
import { openHoldInput } from '@holdfast/protocol/inputs/hold-input';
import { findHoldItem } from './hold-item';
import { resolveTaskForActor } from '../tasks/task-agent';
import { knownHoldOwner } from './known-owner';

export type OpenHoldInput = z.input<typeof openHoldInput>;

/**
 * Parks an item for a person, with a machine-readable reason, a detail and an
 * owner. An item has at most one open hold (a partial unique index): opening
 * another returns the existing one with `created: false`, however many
 * workers race to open it. The item must exist (NOT_FOUND otherwise), and a
 * token limited to some agents or queues may hold only their items.
 */
export async function openHold(ctx: CoreContext, input: OpenHoldInput): Promise<{ hold: Hold; created: boolean }> {
  const actor = authorize(ctx, 'hold.open');
  const parsed = parseInput(openHoldInput, input);
  return ctx.db.transaction(async (tx) => {
    // A token limited to agents holds its own agent's task, aliased when another agent's has the id (task-alias.ts).
    const itemId =
      parsed.itemType === 'task' ? await resolveTaskForActor({ ...ctx, db: tx }, parsed.itemId) : parsed.itemId;
    const item = await findHoldItem(tx, parsed.itemType, itemId);
    authorize(ctx, 'hold.open', item);
    // The item as stored: a raw key named as it was claimed is held under its stored name.
    const request = { ...parsed, itemId: item.itemId ?? itemId };
    const { requestedOwner, ...owned } = await knownHoldOwner(tx, ctx, actor, request);
    const [created] = await tx
      .insert(holds)
      .values({ ...request, ...owned, openedBy: actorLabel(actor) })
      .onConflictDoNothing({ target: [holds.itemType, holds.itemId], where: sql`${holds.status} = 'open'` })
      .returning();
    if (created) {
      await writeAudit(tx, actor, {
        action: 'hold.open',
        targetType: 'hold',
        targetId: String(created.id),
        reason: request.detail,
        after: {
          itemType: created.itemType,
          itemId: created.itemId,
          reason: created.reason,
          owner: created.owner,
          ...(requestedOwner ? { requestedOwner } : {}),
        },
      });
      return { hold: created, created: true };
    }
    const [existing] = await tx
      .select()
      .from(holds)
      .where(and(eq(holds.itemType, request.itemType), eq(holds.itemId, request.itemId), eq(holds.status, 'open')));
    if (!existing) throw new Error('openHold: conflict without an open hold');
    return { hold: existing, created: false };
  });
}
