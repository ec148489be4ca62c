import { metricCatalog, type MetricName } from './catalog';

/** One series, as read-metrics.ts reads it (its Sample; not imported, as read-metrics imports this file). */
interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** The step label a step past its agent's cap is counted under. */
export const OTHER_STEP = 'other';

/** HOLDFAST_METRICS_MAX_STEPS_PER_AGENT's default: more steps than a dashboard can show, far fewer than a runaway agent makes. */
export const DEFAULT_MAX_STEPS_PER_AGENT = 100;

/** The metrics with an agent and a step label: the per-step counters. */
const perStepMetrics = (Object.keys(metricCatalog) as MetricName[]).filter((name) => {
  const labels: readonly string[] = metricCatalog[name].labels;
  return labels.includes('agent') && labels.includes('step');
});

/**
 * Bounds the series an agent's step names can make. Each agent keeps its own
 * series for at most `maxStepsPerAgent` steps: the busiest by attempts (its
 * running total, which only grows, so the choice moves rarely), ties by name;
 * the rest are summed into step `other`, label by label, so every total over
 * the agent stays exact. `holdfast_metric_steps_folded` says how many steps
 * each folded agent has in `other`. Without this, one batch of 1,000 attempts
 * with distinct step names added 5,000 series to every scrape.
 *
 * A step that later outgrows the cap's last kept step takes its own series and
 * leaves `other` (the scrape's high-water mark keeps `other` from reading as a
 * counter reset). A step really named `other` shares the bucket when its agent
 * is past the cap.
 */
export function foldSteps<Samples extends Partial<Record<MetricName, Sample[]>>>(
  samples: Samples,
  maxStepsPerAgent: number,
): Samples & { holdfast_metric_steps_folded: Sample[] } {
  const kept = keptStepsByAgent(samples, maxStepsPerAgent);
  const folded: Partial<Record<MetricName, Sample[]>> = { ...samples, holdfast_metric_steps_folded: [] };
  for (const name of perStepMetrics) {
    const series = samples[name];
    if (series) folded[name] = foldSeries(series, kept);
  }
  for (const [agent, { steps, keep }] of kept) {
    if (steps.size > keep.size)
      folded.holdfast_metric_steps_folded!.push({ labels: { agent }, value: steps.size - keep.size });
  }
  // Same metrics as given, each folded, plus the gauge.
  return folded as Samples & { holdfast_metric_steps_folded: Sample[] };
}

function keptStepsByAgent(samples: Partial<Record<MetricName, Sample[]>>, maxStepsPerAgent: number) {
  const attemptsByStep = new Map<string, Map<string, number>>();
  for (const name of perStepMetrics) {
    for (const { labels, value } of samples[name] ?? []) {
      const steps = attemptsByStep.get(labels.agent!) ?? new Map<string, number>();
      // Every step counts, even one seen only in a refusal; only attempts rank it.
      steps.set(labels.step!, (steps.get(labels.step!) ?? 0) + (name === 'holdfast_attempts_total' ? value : 0));
      attemptsByStep.set(labels.agent!, steps);
    }
  }
  const kept = new Map<string, { steps: Map<string, number>; keep: Set<string> }>();
  for (const [agent, steps] of attemptsByStep) {
    const ranked = [...steps].sort(([stepA, a], [stepB, b]) => b - a || compareText(stepA, stepB));
    kept.set(agent, { steps, keep: new Set(ranked.slice(0, maxStepsPerAgent).map(([step]) => step)) });
  }
  return kept;
}

function foldSeries(series: Sample[], kept: ReturnType<typeof keptStepsByAgent>): Sample[] {
  const byLabels = new Map<string, Sample>();
  for (const { labels, value } of series) {
    const keep = kept.get(labels.agent!)?.keep.has(labels.step!) ?? true;
    const folded = keep ? labels : { ...labels, step: OTHER_STEP };
    const key = JSON.stringify(Object.entries(folded).sort(([a], [b]) => compareText(a, b)));
    const existing = byLabels.get(key);
    if (existing) existing.value += value;
    else byLabels.set(key, { labels: folded, value });
  }
  return [...byLabels.values()];
}

/** Code-point order, the same on every machine (localeCompare is not). */
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
