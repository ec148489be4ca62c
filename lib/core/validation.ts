import type { z } from 'zod';
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
