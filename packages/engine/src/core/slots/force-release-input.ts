import { z } from 'zod';

/** How long after its last heartbeat a still-"running" run is presumed dead. */
export const DEFAULT_HEARTBEAT_GRACE_MS = 10 * 60_000;

export const forceReleaseInput = z.strictObject({
  slot: z.string().trim().min(1).max(300),
  /** The token the person saw: a lock re-acquired since then is not released by a stale click. */
  fencingToken: z.number().int().min(1),
  reason: z.string().trim().min(1, 'say why the lock is released').max(2_000),
  heartbeatGraceMs: z
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 3_600_000)
    .default(DEFAULT_HEARTBEAT_GRACE_MS),
});
