import { z } from 'zod';

/** How long an acknowledgement lasts, at most: a week; left out, until the alert resolves. */
const MAX_ACKNOWLEDGE_MINUTES = 7 * 24 * 60;

/** A responder takes a firing alert, with a note for the others on call. */
export const acknowledgeAlertInput = z.strictObject({
  alertId: z.number({ error: 'must be an alert id' }).int('must be an alert id').min(1, 'must be an alert id'),
  /** For this many minutes; absent: until the alert resolves. */
  forMinutes: z
    .number({ error: 'must be a number of minutes' })
    .int('must be whole minutes')
    .min(1, 'must be at least 1 minute')
    .max(MAX_ACKNOWLEDGE_MINUTES, `must be at most ${MAX_ACKNOWLEDGE_MINUTES} minutes (a week)`)
    .optional(),
  note: z.string().trim().min(1, 'say what you are doing about it').max(2_000, 'must be at most 2,000 characters'),
});
export type AcknowledgeAlertInput = z.input<typeof acknowledgeAlertInput>;

/** Whether someone on call has the alert now: acknowledged, and not past the time they gave. */
export function acknowledgedNow(
  alert: { status: string; acknowledgedBy: string | null; acknowledgedUntil: Date | null },
  now: Date,
): boolean {
  return (
    alert.status === 'firing' &&
    alert.acknowledgedBy !== null &&
    (alert.acknowledgedUntil === null || alert.acknowledgedUntil > now)
  );
}
