import type { TimeWindowName } from '@holdfast/protocol/time-window';

/** An agent's page for a named window. */
export function agentHref(agent: string, window?: TimeWindowName): string {
  return `/agents/${encodeURIComponent(agent)}${window ? `?window=${window}` : ''}`;
}
