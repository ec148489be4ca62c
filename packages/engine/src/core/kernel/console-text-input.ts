import { z } from 'zod';
import { hasLoneSurrogate } from '@holdfast/protocol/well-formed-text';

/**
 * Console text inputs (filters in the URL, route parameters) end up as
 * PostgreSQL text parameters, which cannot hold NUL: one `%00` in a URL would
 * otherwise be a 500 from the database. Refused here, at the edge, instead.
 */
export const NUL_MESSAGE = 'must not contain NUL characters';

export function hasNul(value: unknown): boolean {
  return typeof value === 'string' && value.includes('\u0000');
}

/** A lone UTF-16 surrogate cannot be stored or compared either (packages/protocol/src/well-formed-text.ts). */
export const LONE_SURROGATE_MESSAGE = 'must not contain a lone UTF-16 surrogate';

/** Why a console text cannot be used (NUL, a lone surrogate), or undefined when it can. */
export function unusableTextProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (hasNul(value)) return NUL_MESSAGE;
  return hasLoneSurrogate(value) ? LONE_SURROGATE_MESSAGE : undefined;
}

/** The schema, refusing a text with a NUL or a lone surrogate in it (before its own rules run). */
export function withoutNul<Output>(schema: z.ZodType<Output, string | undefined>) {
  return z
    .string()
    .optional()
    .superRefine((value, context) => {
      const problem = unusableTextProblem(value);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    })
    .pipe(schema);
}

/**
 * A route parameter as the page should use it, or undefined when it cannot name
 * anything: malformed percent-encoding (decodeURIComponent would throw) or a NUL.
 * Pages answer undefined with notFound().
 */
export function decodeRouteParam(raw: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  return unusableTextProblem(decoded) ? undefined : decoded;
}
