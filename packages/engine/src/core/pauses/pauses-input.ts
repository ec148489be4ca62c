import { z } from 'zod';
import { agentName, downstreamName, stepName } from '@holdfast/protocol/names';

/** Schemas only (the console's forms and the clients import them). */

const reason = z.string().trim().min(1, 'say why').max(2_000, 'must be at most 2,000 characters');

/** A whole number in a range; a form's blank or unreadable value arrives as undefined or NaN and is named, not read as 0. */
const wholeNumber = (minimum: number, maximum: number, unit: string) =>
  z
    .number({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a number') })
    .int(`must be whole ${unit}`)
    .min(minimum, `must be at least ${minimum}`)
    .max(maximum, `must be at most ${maximum.toLocaleString('en-US')}`);

const WEEK_MINUTES = 7 * 24 * 60;

/** How long a pause holds before it lifts by itself; absent: until someone resumes it. */
const forMinutes = wholeNumber(1, WEEK_MINUTES, 'minutes').optional();

export const pauseInput = z.discriminatedUnion(
  'scope',
  [
    z.strictObject({ scope: z.literal('step'), agent: agentName, step: stepName, reason, forMinutes }),
    z.strictObject({ scope: z.literal('agent'), agent: agentName, reason, forMinutes }),
    z.strictObject({ scope: z.literal('downstream'), downstream: downstreamName, reason, forMinutes }),
  ],
  { error: 'must be step, agent or downstream' },
);
export type PauseInput = z.input<typeof pauseInput>;
export type PauseRequest = z.output<typeof pauseInput>;

/**
 * Resuming at once, or with a ramp: begins per minute start at `startPerMinute`
 * and rise by as much again each minute, unlimited after `overMinutes`.
 */
export const resumeInput = z.strictObject({
  pauseId: z.number({ error: 'must be a pause id' }).int('must be a pause id').min(1, 'must be a pause id'),
  reason,
  ramp: z
    .strictObject({
      startPerMinute: wholeNumber(1, 100_000, 'begins'),
      overMinutes: wholeNumber(1, 24 * 60, 'minutes'),
    })
    .optional(),
});
export type ResumeInput = z.input<typeof resumeInput>;
export type ResumeRequest = z.output<typeof resumeInput>;

/** Ending a resume's ramp now, with a reason. */
export const endRampInput = z.strictObject({
  pauseId: z.number({ error: 'must be a pause id' }).int('must be a pause id').min(1, 'must be a pause id'),
  reason,
});
export type EndRampInput = z.input<typeof endRampInput>;
