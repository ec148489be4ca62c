import { metricCatalog, type MetricName } from './catalog';
import type { MetricSamples, Sample } from './read-metrics';

/** What a scraping token may see: its allowed agents and queues (absent: every one). */
export interface MetricScope {
  agents?: readonly string[];
  queues?: readonly string[];
}

/** A scope's cache key: one rendered text per distinct scope. */
export function scopeKey(scope: MetricScope = {}): string {
  return JSON.stringify([
    scope.agents ? [...scope.agents].sort() : null,
    scope.queues ? [...scope.queues].sort() : null,
  ]);
}

const isLimited = (scope: MetricScope) => scope.agents !== undefined || scope.queues !== undefined;

/**
 * The samples a token limited to some agents (or queues) may see: the series
 * of its agents (a pool's agent is the part of `pool` before the slash), the
 * series of its queues when it is limited to queues, and no fleet-wide figure
 * (open holds, stale locks, uncertain keys, sweeps, alerts), which sum other
 * agents' work. A metric left out is not rendered at all, rather than shown
 * as a misleading 0. An unlimited scope sees everything.
 */
export function samplesVisibleTo(samples: MetricSamples, scope: MetricScope = {}): Partial<MetricSamples> {
  if (!isLimited(scope)) return samples;
  const visible: Partial<MetricSamples> = {};
  for (const name of Object.keys(samples) as MetricName[]) {
    const allowed = allowedSeries(name, scope);
    if (allowed) visible[name] = samples[name].filter(allowed);
  }
  return visible;
}

function allowedSeries(name: MetricName, scope: MetricScope): ((sample: Sample) => boolean) | undefined {
  const labels: readonly string[] = metricCatalog[name].labels;
  const { agents, queues } = scope;
  if (labels.includes('agent')) return ({ labels }) => !agents || agents.includes(labels.agent!);
  if (labels.includes('pool'))
    return ({ labels }) => !agents || agents.includes(labels.pool!.slice(0, labels.pool!.indexOf('/')));
  // A queue carries the work of any agent that names it: only a queue limit makes its figures the token's.
  if (labels.includes('queue') && queues) return ({ labels }) => queues.includes(labels.queue!);
  return undefined;
}
