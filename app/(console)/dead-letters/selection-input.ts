import { z } from 'zod';

/** The most rows a person can tick at once: one page, with room to spare. */
export const MAX_SELECTION = 200;

/** A ticked selection of dead letters and the one reason the audit log keeps for each. */
export const selectionInput = z.strictObject({
  deadLetterIds: z
    .array(z.number().int().min(1))
    .min(1, 'tick at least one dead letter')
    .max(MAX_SELECTION, `at most ${MAX_SELECTION} at once`),
  reason: z.string().trim().min(1, 'say why').max(2_000),
});
export type SelectionInput = z.input<typeof selectionInput>;

/** What became of one ticked dead letter. */
export interface SelectionItemResult {
  deadLetterId: number;
  outcome: 'done' | 'already_done' | 'refused';
  /** Why it was refused (a library message, safe to show). */
  message?: string;
}
