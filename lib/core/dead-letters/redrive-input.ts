import { z } from 'zod';

export const deadLetterAction = z.strictObject({
  deadLetterId: z.number().int().min(1),
  reason: z.string().trim().min(1, 'say why').max(2_000),
});

export const redriveInput = z.strictObject({
  deadLetterId: z.number().int().min(1),
  reason: z.string().trim().min(1, 'say why').max(2_000),
  /** An admin redrives even though brakes refuse; the audit record names the brakes overridden. */
  overrideBrakes: z.boolean().optional(),
});
