import { z } from 'zod';
import { editedPayload } from '@holdfast/protocol/inputs/payload-edit-input';

export const deadLetterAction = z.strictObject({
  deadLetterId: z.number().int().min(1),
  reason: z.string().trim().min(1, 'say why').max(2_000),
});

export const redriveInput = z.strictObject({
  deadLetterId: z.number().int().min(1),
  reason: z.string().trim().min(1, 'say why').max(2_000),
  /** An admin redrives even though brakes refuse; the audit record names the brakes overridden. */
  overrideBrakes: z.boolean().optional(),
  /**
   * The payload to redrive with, edited from the dead letter's. Content that
   * differs runs as a new task, so none of its steps replays the old task's
   * stored results; the same content is a plain redrive.
   */
  payload: editedPayload.optional(),
});
