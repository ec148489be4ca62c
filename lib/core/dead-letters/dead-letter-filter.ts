import { and, eq, ilike, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { deadLetters, errorClass } from '../../db/schema';

const optionalText = z
  .string()
  .trim()
  .max(200)
  .optional()
  .transform((value) => (value === '' ? undefined : value));

/** Which pending dead letters a list, a preview or a bulk redrive is about. Empty fields match everything. */
export const deadLetterFilter = z.strictObject({
  queue: optionalText,
  agent: optionalText,
  step: optionalText,
  errorClass: z
    .enum(errorClass.enumValues)
    .optional()
    .or(z.literal('').transform(() => undefined)),
  /** Words found anywhere in the last error text, case-insensitive. */
  search: optionalText,
});

export type DeadLetterFilter = z.output<typeof deadLetterFilter>;

/** `%` and `_` typed by a person are searched for literally. */
function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/** The SQL condition for pending dead letters matching the filter. */
export function pendingMatching(filter: DeadLetterFilter): SQL {
  return and(
    eq(deadLetters.status, 'pending'),
    filter.queue ? eq(deadLetters.queue, filter.queue) : undefined,
    filter.agent ? eq(deadLetters.agent, filter.agent) : undefined,
    filter.step ? eq(deadLetters.step, filter.step) : undefined,
    filter.errorClass ? eq(deadLetters.errorClass, filter.errorClass) : undefined,
    filter.search ? ilike(deadLetters.lastError, containing(filter.search)) : undefined,
  ) ?? sql`true`;
}
