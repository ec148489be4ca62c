import { z } from 'zod';
import { InvalidInputError, type FieldErrors } from './errors';
import { unstorableTextProblem } from './well-formed-text';

/** The largest value of a PostgreSQL integer (int4) column; a larger one would fail in the database (a 500). */
export const INT4_MAX = 2_147_483_647;
/** Micro-dollars are bigint columns read as JS numbers: beyond this they would lose precision. */
export const MICROS_MAX = Number.MAX_SAFE_INTEGER;

/** An integer input stored in an int4 column. */
export function int4(minimum: number) {
  return z
    .number()
    .int()
    .min(minimum)
    .max(INT4_MAX, `must be at most ${INT4_MAX.toLocaleString('en-US')}`);
}

/**
 * A derived text (a hold's detail built from an error text) never refuses the
 * request it comes from: it is cut to its column's limit instead.
 */
export function cutToLength(text: string, maxLength: number): string {
  return text.length <= maxLength ? text : `${text.slice(0, maxLength - 1)}…`;
}

/**
 * The one rule for text PostgreSQL cannot store (NUL, a lone UTF-16
 * surrogate: well-formed-text.ts), applied to every text and every key of
 * every input the library parses (nested payloads too), so neither can
 * surface as a 500 from the database. Exported for the HTTP body reader,
 * which refuses them before any endpoint's schema.
 */
export function findUnstorableText(
  value: unknown,
  path: string[] = [],
  found: FieldErrors = {},
  depth = 0,
): FieldErrors {
  if (depth > 64) return found;
  const check = (text: string, at: string[]) => {
    const problem = unstorableTextProblem(text);
    if (problem) (found[at.length > 0 ? at.join('.') : '(input)'] ??= []).push(problem);
  };
  if (typeof value === 'string') {
    check(value, path);
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => {
      findUnstorableText(item, [...path, String(index)], found, depth + 1);
    });
  } else if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    for (const [key, item] of Object.entries(value)) {
      // A bad key is named as it can be printed: its own text would carry the character into the answer.
      const problem = unstorableTextProblem(key);
      if (problem) (found[[...path, JSON.stringify(key).slice(1, -1)].join('.')] ??= []).push(problem);
      else findUnstorableText(item, [...path, key], found, depth + 1);
    }
  }
  return found;
}

/**
 * Parses input with its schema. On failure, throws an InvalidInputError that
 * lists every field's problems, so a caller can fix all of them in one go.
 */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  if (typeof input === 'object' && input !== null && handedOff.get(input) === schema) {
    handedOff.delete(input);
    return input as z.output<Schema>;
  }
  const fieldErrors: FieldErrors = {};
  findUnstorableText(input, [], fieldErrors);
  const result = schema.safeParse(input);
  if (result.success && Object.keys(fieldErrors).length === 0) return result.data;

  for (const issue of result.success ? [] : result.error.issues) {
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

/** Values parseForHandOff produced, each with its schema; taken out by the parse that trusts them. */
const handedOff = new WeakMap<object, z.ZodType>();

/**
 * parseInput, for a caller that hands the value it gets, unchanged, to one library function that parses its
 * input with the same schema (the HTTP API: the endpoint parses first, so that a bad request is refused before
 * its Idempotency-Key is looked at). That function's parse returns the value as it is instead of checking it a
 * second time. Only the same object with the same schema, and only once: any other value is parsed as usual.
 */
export function parseForHandOff<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const parsed = parseInput(schema, input);
  if (typeof parsed === 'object' && parsed !== null) handedOff.set(parsed, schema);
  return parsed;
}
