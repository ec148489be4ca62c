import { z } from 'zod';
import { alertKinds } from '@holdfast/protocol/enums';

/** The longest a silence may last: a month of forgetting is the most anyone should sign for in one go. */
export const MAX_SILENCE_MINUTES = 30 * 24 * 60;
/** A silence ends at least this far ahead: one that ends before the next evaluation pass would silence nothing. */
export const MIN_SILENCE_MINUTES = 5;
export const MAX_SILENCE_REASON = 1_000;
export const MAX_IDENTITY_PATTERN = 300;

/** The durations the console offers, in minutes; any other end is given as a time (`endsAt`). */
export const SILENCE_DURATIONS = [
  { minutes: 60, label: '1 hour' },
  { minutes: 240, label: '4 hours' },
  { minutes: 1_440, label: '24 hours' },
] as const;

const minutes = z
  .number({ error: 'must be a number of minutes' })
  .int('must be whole minutes')
  .min(MIN_SILENCE_MINUTES, `must be at least ${MIN_SILENCE_MINUTES} minutes`)
  .max(MAX_SILENCE_MINUTES, `must be at most ${MAX_SILENCE_MINUTES} minutes (30 days)`);

/**
 * A subject pattern every alert matches, so it narrows nothing: wildcards alone (`*`, `**`), or wildcards on both
 * sides of the one `:` every identity has (`*:*`: identities are `kind:subject`, packages/engine/src/alerts/conditions.ts). Such a
 * pattern counts as no pattern: refused where no pattern would be, stored as none where a rule or team narrows.
 */
export function matchesEverySubject(pattern: string): boolean {
  return /^\*+(?::\*+)?$/.test(pattern);
}

/**
 * A silence: a rule (absent: any rule), optionally narrowed to alerts whose subject matches a pattern
 * (`step:research/*`, `queue:emails`: an alert's identity, `*` standing for any text) and to a team; for a
 * number of minutes or until a time; with a reason the others on call read. Any rule with no pattern and no team
 * would silence everything: refused, so a slip of the form cannot mute the whole console. A pattern that matches
 * every subject (`*`, `*:*`) is no pattern: refused alone, and dropped beside a rule or a team.
 */
export const createSilenceInput = z
  .strictObject({
    kind: z.enum(alertKinds, { error: 'must be one of the alert rules' }).optional(),
    identityPattern: z
      .string({ error: 'must be text' })
      .trim()
      .min(1, 'leave it out to match every subject')
      .max(MAX_IDENTITY_PATTERN, `must be at most ${MAX_IDENTITY_PATTERN} characters`)
      .optional(),
    team: z
      .string({ error: 'must be text' })
      .trim()
      .max(60, 'must be at most 60 characters')
      .regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be a team name: lower-case letters, digits, - and _')
      .optional(),
    forMinutes: minutes.optional(),
    /** An end time instead of a duration (the console's "custom"); checked against the clock by the service. */
    endsAt: z.coerce.date({ error: 'must be a date and time' }).optional(),
    reason: z
      .string({ error: 'must be text' })
      .trim()
      .min(1, 'say why these alerts may stay quiet')
      .max(MAX_SILENCE_REASON, `must be at most ${MAX_SILENCE_REASON.toLocaleString('en-US')} characters`),
  })
  .superRefine((input, context) => {
    if ((input.forMinutes === undefined) === (input.endsAt === undefined)) {
      context.addIssue({ code: 'custom', path: ['forMinutes'], message: 'give a duration or an end time (one)' });
    }
    const pattern = input.identityPattern;
    const narrowsSubjects = pattern !== undefined && !matchesEverySubject(pattern);
    if (input.kind === undefined && !narrowsSubjects && input.team === undefined) {
      context.addIssue({
        code: 'custom',
        path: [pattern === undefined ? 'kind' : 'identityPattern'],
        message:
          pattern === undefined
            ? 'choose a rule, or match a subject or a team: a silence of everything is refused'
            : `${pattern} matches every subject: choose a rule, a narrower subject or a team: a silence of everything is refused`,
      });
    }
  })
  .transform((input) =>
    input.identityPattern !== undefined && matchesEverySubject(input.identityPattern)
      ? { ...input, identityPattern: undefined }
      : input,
  );
export type CreateSilenceInput = z.input<typeof createSilenceInput>;

export const endSilenceInput = z.strictObject({
  silenceId: z.number({ error: 'must be a silence id' }).int('must be a silence id').min(1, 'must be a silence id'),
});
export type EndSilenceInput = z.input<typeof endSilenceInput>;
