import { z } from 'zod';
import { InvalidInputError, type FieldErrors } from './errors';

/**
 * Parses input with its schema. On failure, throws an InvalidInputError that
 * lists every field's problems, so a caller can fix all of them in one go.
 */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;

  const fieldErrors: FieldErrors = {};
  for (const issue of result.error.issues) {
    const field = issue.path.length > 0 ? issue.path.join('.') : '(input)';
    (fieldErrors[field] ??= []).push(issue.message);
  }
  const summary = Object.entries(fieldErrors)
    .map(([field, messages]) => `${field}: ${messages.join(', ')}`)
    .join('; ');
  throw new InvalidInputError(`Invalid input: ${summary}`, fieldErrors);
}

/** A text field from a form or a URL: trimmed, and a blank one counts as absent. */
export function optionalText(maxLength: number) {
  return z
    .string()
    .trim()
    .max(maxLength)
    .optional()
    .transform((value) => (value === '' ? undefined : value));
}

/** A number from a form, a URL or JSON: blank means absent; anything else must be in [0, maximum]. */
export function optionalNumber(maximum: number) {
  return z
    .union([z.number(), z.string().trim()])
    .optional()
    .transform((value, context) => {
      if (value === undefined || value === '') return undefined;
      const number = Number(value);
      if (!Number.isFinite(number) || number < 0 || number > maximum) {
        context.addIssue({ code: 'custom', message: `must be a number from 0 to ${maximum}` });
        return z.NEVER;
      }
      return number;
    });
}
