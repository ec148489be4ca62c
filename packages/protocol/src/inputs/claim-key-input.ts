import { z } from 'zod';
import { stepName } from '../names';

const HOUR_MS = 3_600_000;

export const claimKeyInput = z.strictObject({
  key: z.string().trim().min(1).max(500),
  scope: z.string().trim().min(1).max(50).default('step'),
  requestHash: z.string().trim().min(1).max(200),
  /** Who claims: a run key or worker name, shown to the people triaging. */
  holder: z.string().trim().min(1).max(200).optional(),
  /** After this a silent holder is presumed dead and another claim may take over. */
  inProgressTtlMs: z
    .number()
    .int()
    .min(10)
    .max(24 * HOUR_MS)
    .default(60_000),
  /**
   * How long the key is kept after its lock ends and again after each settle
   * (the scope's retention when absent). Stored on the key, so a settle applies it too.
   */
  retentionMs: z
    .number()
    .int()
    .min(1_000)
    .max(400 * 24 * HOUR_MS)
    .optional(),
  /** False when repeating the side effect is unsafe: an expired claim is then uncertain, not taken over. */
  downstreamIdempotent: z.boolean().default(true),
  taskId: z.string().trim().min(1).max(200).optional(),
  step: stepName.optional(),
});
export type ClaimKeyInput = z.input<typeof claimKeyInput>;
export type ClaimKeyRequest = z.output<typeof claimKeyInput>;
