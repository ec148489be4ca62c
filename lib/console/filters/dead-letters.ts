import { z } from 'zod';
import { deadLetterFilter, type DeadLetterFilter } from '../../core/dead-letters/dead-letter-filter-input';

/**
 * The Dead letters page's filters as the URL carries them: the library's
 * filter (lib/core, shared with bulk redrive by filter), with spend typed in
 * dollars rather than micro-dollars.
 */
export const deadLettersUrlFilter = z.strictObject({
  queue: deadLetterFilter.shape.queue,
  agent: deadLetterFilter.shape.agent,
  step: deadLetterFilter.shape.step,
  errorClass: deadLetterFilter.shape.errorClass,
  search: deadLetterFilter.shape.search,
  minAttempts: deadLetterFilter.shape.minAttempts,
  minSpendUsd: z
    .string()
    .optional()
    .transform((usd): string | number | undefined => (usd ? String(Math.round(Number(usd) * 1_000_000)) : undefined))
    .pipe(deadLetterFilter.shape.minSpendMicros),
  minAgeHours: deadLetterFilter.shape.minAgeHours,
});

/** The library's filter for what the URL asked. */
export function toDeadLetterFilter(url: z.output<typeof deadLettersUrlFilter>): DeadLetterFilter {
  const { minSpendUsd, ...rest } = url;
  return { ...rest, minSpendMicros: minSpendUsd };
}

/** What each filter is called on the page. */
export const deadLettersFilterLabels = {
  queue: 'Queue',
  agent: 'Agent',
  step: 'Step',
  errorClass: 'Error class',
  search: 'Error text contains',
  minAttempts: 'Attempts at least',
  minSpendUsd: 'Spend at least (USD)',
  minAgeHours: 'Waiting at least (hours)',
} as const satisfies Record<keyof z.output<typeof deadLettersUrlFilter>, string>;

/** The Dead letters page's URL for a filter (what a bulk redrive's "matching" means). */
export function deadLettersHref(filter: Partial<DeadLetterFilter>): string {
  const params = new URLSearchParams();
  const values: Record<string, string | undefined> = {
    queue: filter.queue,
    agent: filter.agent,
    step: filter.step,
    errorClass: filter.errorClass,
    search: filter.search,
    minAttempts: filter.minAttempts?.toString(),
    minSpendUsd: filter.minSpendMicros === undefined ? undefined : String(filter.minSpendMicros / 1_000_000),
    minAgeHours: filter.minAgeHours?.toString(),
  };
  for (const [name, value] of Object.entries(values)) if (value) params.set(name, value);
  const query = params.toString();
  return query ? `/dead-letters?${query}` : '/dead-letters';
}
