import type { Transaction } from '../../db/client';
import { SWEEPER, type CoreContext } from '../kernel/context';
import { openHold, type OpenHoldInput } from './open-hold';

/** Who gets an escalated hold when the item names no task (a key or a run claimed outside a task). */
export const DEFAULT_ESCALATION_OWNER = 'team:platform';

/** What an escalation sweep runs with; every field has a default. */
export interface EscalationOptions {
  /** How long the condition must have lasted before a person is asked to look. */
  afterMs?: number;
  /** Owner of holds on items whose task (and so whose owner) is unknown. */
  defaultOwner?: string;
  /** The sweep's time; tests pass a later one instead of waiting. Defaults to the context's clock. */
  now?: Date;
  limit?: number;
}

/** One item the sweep escalated; `holdCreated` is false when an open hold on it already existed. */
export interface EscalatedItem {
  itemId: string;
  holdId: number;
  holdCreated: boolean;
  owner: string;
}

/** What one escalation does to one found item: mark it escalated (guarded), then park it for a person. */
export interface Escalation<Item> {
  /** The guarded UPDATE that marks the item escalated; false when the item changed since the scan. */
  mark: (tx: Transaction, item: Item) => Promise<boolean>;
  /** The hold to open for the item (or find, when one is open already). */
  hold: (item: Item) => OpenHoldInput & { itemId: string };
}

/**
 * Escalates each found item in a transaction of its own: the mark and the
 * hold commit together, and an item whose mark finds it changed (released,
 * reported back, escalated by another sweep) is left alone, so each item is
 * escalated once however often, or however concurrently, the sweep runs.
 */
export async function escalateEach<Item>(
  ctx: CoreContext,
  items: Item[],
  escalation: Escalation<Item>,
): Promise<EscalatedItem[]> {
  const escalated: EscalatedItem[] = [];
  for (const item of items) {
    const done = await ctx.db.transaction(async (tx) => {
      if (!(await escalation.mark(tx, item))) return undefined;
      const request = escalation.hold(item);
      const { hold, created } = await openHold({ db: tx, actor: ctx.actor ?? SWEEPER }, request);
      return { itemId: request.itemId, holdId: hold.id, holdCreated: created, owner: hold.owner };
    });
    if (done) escalated.push(done);
  }
  return escalated;
}
