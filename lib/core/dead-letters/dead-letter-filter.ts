import { and, eq, gte, ilike, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { deadLetters, errorClass } from '../../db/schema';
import { withoutNul } from '../../auth/console-input';
import { optionalNumber, optionalText } from '../validation';

/** Which pending dead letters a list, a preview or a bulk redrive is about. Empty fields match everything. */
export const deadLetterFilter = z.strictObject({
  // withoutNul: these come from the console's URL, where `%00` would reach PostgreSQL as text.
  queue: withoutNul(optionalText(200)),
  agent: withoutNul(optionalText(200)),
  step: withoutNul(optionalText(200)),
  errorClass: z
    .enum(errorClass.enumValues)
    .optional()
    .or(z.literal('').transform(() => undefined)),
  /** Words found anywhere in the last error text, case-insensitive. */
  search: withoutNul(optionalText(200)),
  /** At least this many attempts, this much spent (micro-dollars), this many hours waiting. */
  minAttempts: optionalNumber(100_000),
  minSpendMicros: optionalNumber(Number.MAX_SAFE_INTEGER),
  minAgeHours: optionalNumber(24 * 3_650),
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
    filter.minAttempts !== undefined ? gte(deadLetters.attempts, filter.minAttempts) : undefined,
    filter.minSpendMicros !== undefined ? gte(deadLetters.spendMicros, filter.minSpendMicros) : undefined,
    filter.minAgeHours !== undefined ? sql`${deadLetters.createdAt} <= now() - ${filter.minAgeHours} * interval '1 hour'` : undefined,
  ) ?? sql`true`;
}
