import { z } from 'zod';
import { deadLetterFilter, type DeadLetterFilter } from '@holdfast/engine/core';

/**
 * The Dead letters page's filters as the URL carries them: the library's
 * filter (packages/engine/src/core, shared with bulk redrive by filter), with spend typed in
 * dollars rather than micro-dollars.
 */
export const deadLettersUrlFilter = z.strictObject({
  queue: deadLetterFilter.shape.queue,
  agent: deadLetterFilter.shape.agent,
  step: deadLetterFilter.shape.step,
  errorClass: deadLetterFilter.shape.errorClass,
  group: deadLetterFilter.shape.group,
  search: deadLetterFilter.shape.search,
  minAttempts: deadLetterFilter.shape.minAttempts,
  minSpendUsd: z
    .string()
    .optional()
    .transform((usd): string | number | undefined => (usd ? String(Math.round(Number(usd) * 1_000_000)) : undefined))
    .pipe(deadLetterFilter.shape.minSpendMicros),
  minAgeHours: deadLetterFilter.shape.minAgeHours,
});

/** A place in the list: the id of the dead letter a page starts after or ends before. */
const cursor = z
  .string()
  .regex(/^[1-9][0-9]{0,14}$/, 'must be a dead letter id')
  .optional()
  .transform((id) => (id === undefined ? undefined : Number(id)));

/**
 * The page of the list the URL asks for, read apart from the filter (the
 * filter's form starts from the first page; a paging link keeps the filter).
 */
export const deadLettersUrlPage = z.strictObject({ after: cursor, before: cursor });
export type DeadLettersUrlPage = Partial<z.output<typeof deadLettersUrlPage>>;

/** The library's filter for what the URL asked. */
export function toDeadLetterFilter(url: z.output<typeof deadLettersUrlFilter>): DeadLetterFilter {
  const { minSpendUsd, ...rest } = url;
  return { ...rest, minSpendMicros: minSpendUsd };
}
