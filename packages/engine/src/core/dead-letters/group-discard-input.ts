import { z } from 'zod';

/** A group's discard takes on at most this many dead letters at once, all in one transaction. */
export const GROUP_DISCARD_LIMIT = 1_000;

/** Discard every pending dead letter of one error group: the count the person confirmed guards against surprise. */
export const discardGroupInput = z.strictObject({
  group: z.string().regex(/^[0-9a-f]{32}$/, 'must be an error group (32 hex digits)'),
  reason: z.string().trim().min(1, 'say why').max(2_000),
  /** How many the person saw and confirmed: a group that has changed since is refused, to be looked at again. */
  expectedCount: z.number().int().min(1).max(GROUP_DISCARD_LIMIT, `at most ${GROUP_DISCARD_LIMIT} at once`),
});
