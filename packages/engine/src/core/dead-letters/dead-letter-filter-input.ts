import { z } from 'zod';
import { withoutNul } from '../kernel/console-text-input';
import { errorClasses } from '@holdfast/protocol/enums';
import { optionalNumber, optionalText } from '@holdfast/protocol/validation';

/** Which pending dead letters a list, a preview or a bulk redrive is about. Empty fields match everything. */
export const deadLetterFilter = z.strictObject({
  // withoutNul: these come from the console's URL, where `%00` would reach PostgreSQL as text.
  queue: withoutNul(optionalText(200)),
  agent: withoutNul(optionalText(200)),
  step: withoutNul(optionalText(200)),
  errorClass: z
    .enum(errorClasses)
    .optional()
    .or(z.literal('').transform(() => undefined)),
  /** One error group (its fingerprint, from the Errors page): the dead letters whose last error is of it. */
  group: z
    .string()
    .regex(/^[0-9a-f]{32}$/, 'must be an error group (32 hex digits)')
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
