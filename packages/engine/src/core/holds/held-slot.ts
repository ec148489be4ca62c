import type { HeldItem } from './held-item';

/** A held slot: its hold parks a lock for a person to look at; clearing it changes no lock. */
export const heldSlot: HeldItem = {
  action: () => undefined,
  resolve: async () => 'no change to the slot',
};
