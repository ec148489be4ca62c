/** The Dead letters filter as its page shows it: each field's label, and the URL of a filter at a page. */
import type { z } from 'zod';
import type { DeadLetterFilter } from '@holdfast/engine/core';
import type { DeadLettersUrlPage, deadLettersUrlFilter } from '../../filters/dead-letters';

/** What each filter is called on the page. */
export const deadLettersFilterLabels = {
  queue: 'Queue',
  agent: 'Agent',
  step: 'Step',
  errorClass: 'Error class',
  group: 'Error group',
  search: 'Error text contains',
  minAttempts: 'Attempts at least',
  minSpendUsd: 'Spend at least (USD)',
  minAgeHours: 'Waiting at least (hours)',
} as const satisfies Record<keyof z.output<typeof deadLettersUrlFilter>, string>;

/** The Dead letters page's URL for a filter (what a bulk redrive's "matching" means), at a page of it. */
export function deadLettersHref(filter: Partial<DeadLetterFilter>, page: DeadLettersUrlPage = {}): string {
  const params = new URLSearchParams();
  const values: Record<string, string | undefined> = {
    queue: filter.queue,
    agent: filter.agent,
    step: filter.step,
    errorClass: filter.errorClass,
    group: filter.group,
    search: filter.search,
    minAttempts: filter.minAttempts?.toString(),
    minSpendUsd: filter.minSpendMicros === undefined ? undefined : String(filter.minSpendMicros / 1_000_000),
    minAgeHours: filter.minAgeHours?.toString(),
    after: page.after?.toString(),
    before: page.after === undefined ? page.before?.toString() : undefined,
  };
  for (const [name, value] of Object.entries(values)) if (value) params.set(name, value);
  const query = params.toString();
  return query ? `/dead-letters?${query}` : '/dead-letters';
}
