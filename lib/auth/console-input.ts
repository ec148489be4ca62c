import { z } from 'zod';

/**
 * Console text inputs (filters in the URL, route parameters) end up as
 * PostgreSQL text parameters, which cannot hold NUL: one `%00` in a URL would
 * otherwise be a 500 from the database. Refused here, at the edge, instead.
 */
export const NUL_MESSAGE = 'must not contain NUL characters';

export function hasNul(value: unknown): boolean {
  return typeof value === 'string' && value.includes('\u0000');
}

/** The schema, refusing a text with a NUL in it (before its own rules run). */
export function withoutNul<Output>(schema: z.ZodType<Output, string | undefined>) {
  return z
    .string()
    .optional()
    .refine((value) => !hasNul(value), NUL_MESSAGE)
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
  return hasNul(decoded) ? undefined : decoded;
}
