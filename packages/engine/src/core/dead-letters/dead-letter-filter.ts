import { and, eq, gte, ilike, sql, type SQL } from 'drizzle-orm';
import { deadLetters } from '../../db/schema';
import { likeLiteral } from '../../db/like-pattern';
import type { DeadLetterFilter } from './dead-letter-filter-input';

export { deadLetterFilter, type DeadLetterFilter } from './dead-letter-filter-input';

/** `%` and `_` typed by a person are searched for literally. */
function containing(text: string): string {
  return `%${likeLiteral(text)}%`;
}

/** The SQL condition for pending dead letters matching the filter. */
export function pendingMatching(filter: DeadLetterFilter): SQL {
  return (
    and(
      eq(deadLetters.status, 'pending'),
      filter.queue ? eq(deadLetters.queue, filter.queue) : undefined,
      filter.agent ? eq(deadLetters.agent, filter.agent) : undefined,
      filter.step ? eq(deadLetters.step, filter.step) : undefined,
      filter.errorClass ? eq(deadLetters.errorClass, filter.errorClass) : undefined,
      filter.group ? eq(deadLetters.errorFingerprint, filter.group) : undefined,
      filter.search ? ilike(deadLetters.lastError, containing(filter.search)) : undefined,
      filter.minAttempts !== undefined ? gte(deadLetters.attempts, filter.minAttempts) : undefined,
      filter.minSpendMicros !== undefined ? gte(deadLetters.spendMicros, filter.minSpendMicros) : undefined,
      filter.minAgeHours !== undefined
        ? sql`${deadLetters.createdAt} <= now() - ${filter.minAgeHours} * interval '1 hour'`
        : undefined,
    ) ?? sql`true`
  );
}
