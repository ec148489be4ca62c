/** The Steps view as its page shows it: each parameter's label, and the URL of a changed view. */
import type { z } from 'zod';
import type { StepsView, stepsFilter } from '../../filters/steps';

/** What each parameter is called on the page. */
export const stepsFilterLabels = {
  window: 'Time window',
  agent: 'Agent',
  q: 'Search',
  source: 'Arrived through',
  cost: 'Cost source',
  owner: 'Owner',
  sort: 'Sort by',
  dir: 'Direction',
} as const satisfies Record<keyof z.output<typeof stepsFilter>, string>;

/** The URL of this view with some parameters changed. */
export function stepsViewHref(view: StepsView, changes: Record<string, string | undefined>): string {
  return `/steps?${stepsViewParams(view, changes).toString()}`;
}

/** The CSV export of this view: every matching step, in its sort (app/api/console/steps.csv). */
export function stepsExportHref(view: StepsView): string {
  return `/api/console/steps.csv?${stepsViewParams(view, {}).toString()}`;
}

function stepsViewParams(view: StepsView, changes: Record<string, string | undefined>): URLSearchParams {
  const params = new URLSearchParams();
  const base: Record<string, string | undefined> = {
    window: view.window,
    from: view.window === 'custom' ? view.range.from.toISOString() : undefined,
    to: view.window === 'custom' ? view.range.to.toISOString() : undefined,
    agent: view.agent,
    q: view.search,
    source: view.source,
    cost: view.cost,
    owner: view.owner,
    sort: view.sort,
    dir: view.dir,
  };
  for (const [name, value] of Object.entries({ ...base, ...changes })) if (value) params.set(name, value);
  return params;
}
