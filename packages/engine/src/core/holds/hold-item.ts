import { eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { deadLetters, idempotencyKeys, slotLocks, taskBudgets, type HoldItemType } from '../../db/schema';
import { agentOfSlot, targetOfKey } from '../identity/agent-targets';
import type { ActionTarget } from '../identity/authorization';
import { NotFoundError } from '@holdfast/protocol/errors';
import { storedRawKey } from '../keys/raw-key-name';

const itemNames: Record<HoldItemType, string> = {
  task: 'task',
  dead_letter: 'dead letter',
  key: 'idempotency key',
  slot: 'slot lock',
};

/**
 * The item a hold parks, which must exist: a hold on nothing (or on a typo)
 * would be resolved against whatever later takes that name. Returns the agent
 * and queue it belongs to where known, for a token's limits, and the item's
 * stored name where the request may give another (a raw key). NOT_FOUND names it.
 */
export async function findHoldItem(
  db: Executor,
  itemType: HoldItemType,
  itemId: string,
): Promise<ActionTarget & { itemId?: string }> {
  const missing = () =>
    new NotFoundError(`No ${itemNames[itemType]} "${itemId}" to hold: a hold parks an item that exists`);
  switch (itemType) {
    case 'task': {
      const [task] = await db
        .select({ agent: taskBudgets.agent, queue: taskBudgets.queue })
        .from(taskBudgets)
        .where(eq(taskBudgets.taskId, itemId));
      if (!task) throw missing();
      return task;
    }
    case 'dead_letter': {
      const [letter] = /^\d{1,15}$/.test(itemId)
        ? await db
            .select({ agent: deadLetters.agent, queue: deadLetters.queue })
            .from(deadLetters)
            .where(eq(deadLetters.id, Number(itemId)))
        : [];
      if (!letter) throw missing();
      return letter;
    }
    case 'key': {
      const stored = await storedKeyName(db, itemId);
      if (!stored) throw missing();
      return { ...(await targetOfKey(db, stored)), itemId: stored };
    }
    case 'slot': {
      const [lock] = await db.select({ slot: slotLocks.slot }).from(slotLocks).where(eq(slotLocks.slot, itemId));
      if (!lock) throw missing();
      return agentOfSlot(db, itemId);
    }
  }
}

/**
 * A key as stored: a step key by its own name, else a raw key by the name it
 * was claimed with (stored under the raw prefix, raw-key-name.ts).
 */
async function storedKeyName(db: Executor, name: string): Promise<string | undefined> {
  const names = [...new Set([name, storedRawKey(name)])];
  const rows = await db
    .select({ key: idempotencyKeys.key })
    .from(idempotencyKeys)
    .where(inArray(idempotencyKeys.key, names));
  return names.find((candidate) => rows.some((row) => row.key === candidate));
}
