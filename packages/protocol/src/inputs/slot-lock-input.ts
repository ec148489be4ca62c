import { z } from 'zod';

const slot = z.string().trim().min(1).max(300);
const runKey = z.string().trim().min(1).max(200);
const ttlMs = z
  .number()
  .int()
  .min(100)
  .max(24 * 3_600_000);

export const acquireSlotInput = z.strictObject({ slot, runKey, ttlMs });

export const heartbeatSlotInput = z.strictObject({ slot, runKey, fencingToken: z.number().int().min(1), ttlMs });

export const releaseSlotInput = z.strictObject({ slot, runKey });

export const evidenceInput = z.strictObject({
  slot,
  runKey,
  fencingToken: z.number().int().min(1),
  ref: z.string().trim().min(1).max(500),
});
