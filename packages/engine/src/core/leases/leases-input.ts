import { z } from 'zod';

export const leaseInput = z.strictObject({
  job: z.string().trim().min(1).max(100),
  bucket: z.string().trim().min(1).max(100),
  /** How long a pass may take before another fire may redo the bucket. */
  ttlMs: z
    .number()
    .int()
    .min(1_000)
    .max(24 * 3_600_000)
    .default(15 * 60_000),
});
