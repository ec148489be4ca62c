import type { TimeWindowName } from '@holdfast/protocol/time-window';

/** A step's detail page, over a window when one is given (each name encoded: a step may hold a slash). */
export function stepDetailHref(agent: string, step: string, window?: TimeWindowName): string {
  const path = `/steps/${encodeURIComponent(agent)}/${encodeURIComponent(step)}`;
  return window ? `${path}?window=${window}` : path;
}
