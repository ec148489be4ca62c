/** The Holds filter as its page shows it: each field's label, and the URL of a changed filter. */
import type { HoldsFilter } from '../../filters/holds';

/** What each filter is called on the page. */
export const holdsFilterLabels = {
  view: 'Show',
  mine: "Mine and my teams'",
  owner: 'Owner',
  reason: 'Reason',
  frozen: 'Frozen only',
  minAgeHours: 'Waiting at least (hours)',
  after: 'Page',
  before: 'Page',
} as const satisfies Record<keyof HoldsFilter, string>;

/**
 * The Holds page's URL with some filters changed (defaults left out, so links
 * stay short). The page (`after`/`before`) is never carried over: a link names its page or starts at the first.
 */
export function holdsHref(filter: HoldsFilter, change: Partial<Record<keyof HoldsFilter, string | undefined>>): string {
  const params = new URLSearchParams();
  const current: Record<string, string | undefined> = {
    view: filter.view === 'open' ? undefined : filter.view,
    mine: filter.mine ? '1' : undefined,
    owner: filter.owner,
    reason: filter.reason,
    frozen: filter.frozen ? '1' : undefined,
    minAgeHours: filter.minAgeHours?.toString(),
  };

  for (const [name, value] of Object.entries({ ...current, ...change })) if (value) params.set(name, value);
  const query = params.toString();
  return query ? `/holds?${query}` : '/holds';
}
