import { z } from 'zod';

/** An admin's release of a stale lock its guards refuse: the token seen, and why (kept in the audit log). */
export const overrideReleaseInput = z.strictObject({
  slot: z.string().trim().min(1).max(300),
  /** The token the person saw: a lock re-acquired since then is not released by a stale click. */
  fencingToken: z.number().int().min(1),
  reason: z.string().trim().min(1, 'say why the guards are overridden').max(2_000),
});
