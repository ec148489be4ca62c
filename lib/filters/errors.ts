import { z } from 'zod';
import { withoutNul } from '@holdfast/engine/core';
import { optionalText } from '@holdfast/protocol/validation';
import { DEFAULT_TIME_WINDOW, timeWindowName, type TimeWindowName } from '@holdfast/protocol/time-window';
import { readFilter, type SearchParams } from './read-filter';

/** The Errors page's URL: a window, one step (agent and step together) and words to search for. */
const errorsUrl = z.strictObject({
  window: timeWindowName.optional(),
  agent: withoutNul(optionalText(200)),
  step: withoutNul(optionalText(200)),
  search: withoutNul(optionalText(200)),
});

export interface ErrorsView {
  window: TimeWindowName;
  filter: { agent?: string; step?: string; search?: string };
  notices: string[];
}

export function parseErrorsView(params: SearchParams): ErrorsView {
  const { filter, notices } = readFilter(errorsUrl, params);
  return {
    window: filter.window ?? DEFAULT_TIME_WINDOW,
    filter: { agent: filter.agent, step: filter.step, search: filter.search },
    notices,
  };
}

/** The Errors page's address for a view (the default window is left out). */
export function errorsHref(view: Pick<ErrorsView, 'window' | 'filter'>): string {
  const params = new URLSearchParams();
  if (view.window !== DEFAULT_TIME_WINDOW) params.set('window', view.window);
  for (const name of ['agent', 'step', 'search'] as const) {
    const value = view.filter[name];
    if (value) params.set(name, value);
  }
  const query = params.toString();
  return query ? `/errors?${query}` : '/errors';
}
