import type { Transaction } from '../../db/client';
import type { Hold, HoldResolution } from '../../db/schema';
import type { Action } from '../identity/authorization';
import type { Actor, CoreContext } from '../kernel/context';

/**
 * What a hold on one type of item means to that item, declared by the item's own domain and listed in
 * hold-clearing/held-items.ts: clearing a hold is the item's own action too, and changes the item in the
 * clear's transaction.
 */
export interface HeldItem {
  /**
   * The item's own action a clear needs on top of the hold's permission: an owner may not do through a hold
   * what their role forbids. Undefined when the hold's permission is enough.
   */
  action(resolution: HoldResolution): Action | undefined;
  /** Locks the item before its hold is locked, where the item's own actions lock in that order (no deadlock). */
  lockBeforeHold?(tx: Transaction, itemId: string): Promise<void>;
  /** Changes the item as the cleared hold says, in the clear's transaction; a short account for the audit record. */
  resolve(tx: Transaction, actor: Actor, hold: Hold, ctx: CoreContext): Promise<string>;
}
