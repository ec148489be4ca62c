import { Counter, Gauge, Registry } from 'prom-client';
import type { Executor } from '../db/client';
import { metricCatalog, type MetricName } from './catalog';
import { type MetricScope, samplesVisibleTo, scopeKey } from './metric-scope';
import { type MetricSamples, readMetrics } from './read-metrics';

/** The longest a rendered scrape is served again: Prometheus scrapes every 15-60 s, people and several scrapers more often. */
export const METRICS_CACHE_MS = 10_000;

/** The content type of the Prometheus text format prom-client writes. */
export const METRICS_CONTENT_TYPE = new Registry().contentType;

export interface ScrapeOptions {
  /** The time gauges are judged by and the cache is aged by (the machine's clock if none). */
  clock?: () => Date;
  /** Serve a text rendered less than this long ago; at most METRICS_CACHE_MS, 0 renders afresh. */
  maxAgeMs?: number;
  /** Each agent's steps past this many share step `other` (HOLDFAST_METRICS_MAX_STEPS_PER_AGENT; 100 if none). */
  maxStepsPerAgent?: number;
  /** The agents and queues the scraping token is limited to: it sees only their series (metric-scope.ts). */
  scope?: MetricScope;
}

/** This process's last render, and the render under way (concurrent scrapes share it), per scope. */
const cached = new Map<string, { text: string; madeAt: number }>();
const rendering = new Map<string, { text: Promise<string>; startedAt: number }>();

/**
 * The highest value this process has exported for each counter series. A
 * counter is the running total (rolled hours) plus the raw tail since the
 * rollup edge; a row committed while a rollup pass runs, for the hour the
 * pass is closing, is in the tail until the pass commits and then in neither
 * until the next pass re-rolls its hour (a minute later). Exporting the
 * high-water mark keeps that brief dip from reading as a counter reset.
 */
const highWater = new Map<string, number>();

/** The metrics in the Prometheus text format, rendered at most once per `maxAgeMs` per process. */
export async function scrapeMetrics(db: Executor, options: ScrapeOptions = {}): Promise<string> {
  const clock = options.clock ?? (() => new Date());
  const maxAgeMs = Math.min(options.maxAgeMs ?? METRICS_CACHE_MS, METRICS_CACHE_MS);
  const render = async () =>
    renderMetrics(
      samplesVisibleTo(await readMetrics(db, clock(), { maxStepsPerAgent: options.maxStepsPerAgent }), options.scope),
    );
  if (maxAgeMs <= 0) return render();

  // A token limited to some agents never gets a text rendered for another scope.
  const key = `${options.maxStepsPerAgent ?? ''}:${scopeKey(options.scope)}`;
  const now = clock().getTime();
  const last = cached.get(key);
  if (last && now - last.madeAt < maxAgeMs && now >= last.madeAt) return last.text;
  // A render older than the cache's age is not joined: a query the driver left unsettled (a
  // connection that died mid-flight) would otherwise hold every later scrape with it.
  const under = rendering.get(key);
  if (under && now - under.startedAt < maxAgeMs && now >= under.startedAt) return under.text;
  const text = render();
  const current = { text, startedAt: now };
  rendering.set(key, current);
  const settle = () => {
    if (rendering.get(key) === current) rendering.delete(key);
  };
  text.then((made) => {
    // A render abandoned as too old may finish after a newer one: keep the newer.
    const kept = cached.get(key);
    if (!kept || kept.madeAt <= now) cached.set(key, { text: made, madeAt: now });
    settle();
  }, settle);
  return text;
}

/** Forgets the cached text and the counters' high-water marks: the process as it starts. */
export function resetMetricsProcessState(): void {
  cached.clear();
  rendering.clear();
  highWater.clear();
}

/**
 * Renders the samples with prom-client in a fresh registry: one per render,
 * so a series that is gone (a queue emptied, a pool deleted) is gone from the
 * text too, and nothing is shared between requests. No default process
 * metrics: this endpoint describes the fleet's work, not the Node process
 * (and collectDefaultMetrics is built for one long-lived registry).
 */
export async function renderMetrics(samples: Partial<MetricSamples>): Promise<string> {
  const registry = new Registry();
  for (const name of Object.keys(metricCatalog) as MetricName[]) {
    const series = samples[name];
    // Left out of a limited token's scope: not rendered, rather than shown at 0.
    if (!series) continue;
    const { type, help, labels } = metricCatalog[name];
    const labelNames = [...labels];
    if (type === 'counter') {
      const counter = new Counter({ name, help, labelNames, registers: [registry] });
      for (const sample of series) counter.inc(sample.labels, neverBelow(name, sample));
    } else {
      const gauge = new Gauge({ name, help, labelNames, registers: [registry] });
      for (const sample of series) gauge.set(sample.labels, sample.value);
    }
  }
  return registry.metrics();
}

function neverBelow(name: MetricName, sample: { labels: Record<string, string>; value: number }): number {
  const key = `${name}${JSON.stringify(sample.labels)}`;
  const value = Math.max(sample.value, highWater.get(key) ?? 0);
  highWater.set(key, value);
  return value;
}
