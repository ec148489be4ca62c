import type { Hold, HoldItemType, HoldResolution } from '../../db/schema';
import { heldDeadLetter } from '../dead-letters/held-dead-letter';
import type { HeldItem } from '../holds/held-item';
import { heldKey } from '../holds/held-key';
import { heldSlot } from '../holds/held-slot';
import { heldTask } from '../holds/held-task';
import { decide, type Decision } from '../identity/authorization';
import type { Actor } from '../kernel/context';

/** What a hold means to its item, per item type, each declared by the item's domain. A new held item is one line. */
export const heldItems: Record<HoldItemType, HeldItem> = {
  task: heldTask,
  key: heldKey,
  slot: heldSlot,
  dead_letter: heldDeadLetter,
};

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
    const action = heldItems[hold.itemType].action(way);
    return action ? decide(actor, action) : clear;
  });
  return decisions.find((decision) => decision.allowed) ?? decisions[0]!;
}
