import { z } from 'zod';

export const renewableLeaseInput = z.strictObject({
  /** What is held, such as `demo_fleet`: one holder at a time across all instances. */
  name: z.string().trim().min(1).max(100),
  /** Who holds it; INSTANCE_NAME for a process. */
  holder: z.string().trim().min(1).max(300),
  /** How long the lease lasts unless renewed: a holder that dies frees it after this. */
  ttlMs: z
    .number()
    .int()
    .min(100)
    .max(24 * 3_600_000),
  /**
   * The time to judge by. Absent, the database's now(), so every instance
   * agrees whatever their machines' clocks say; tests pass their own.
   */
  at: z.date().optional(),
  /** Also take it from this holder before its TTL is up: one known to be gone (isGoneInstance). */
  replacing: z.string().trim().min(1).max(300).optional(),
});
export type RenewableLeaseInput = z.input<typeof renewableLeaseInput>;

export const releaseRenewableLeaseInput = renewableLeaseInput.pick({ name: true, holder: true, at: true });
export type ReleaseRenewableLeaseInput = z.input<typeof releaseRenewableLeaseInput>;
