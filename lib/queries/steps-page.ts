import 'server-only';
import type { Executor } from '../db/client';
import type { BaselineDaySums } from '../rollups/anomaly-baselines';
import { readStepsPage, STEPS_PAGE_SIZE, type StepsView } from '../filters/steps';
import { getStepAnomalies, type StepAnomaly } from './anomalies';
import { getStepPoolCoverage, type StepPoolCoverage } from './retry-pools';
import { getStepSources, getStepsWithSource, type StepSource } from './step-sources';
import { getStepStats, type StepStats, withShownDetails } from './step-stats';

/** What the Steps page shows: one page of the view's steps, and what its filters and pager need. */
export interface StepsPageView {
  /** Every agent with attempts in the window, for the agent filter. */
  agents: string[];
  /** Steps matching the view's filters, on every page. */
  total: number;
  page: number;
  steps: StepStats[];
  anomalies: Map<string, StepAnomaly>;
  pools: Map<string, StepPoolCoverage>;
  /** The ways the shown steps' attempts reached Holdfast, keyed `agent/step`. */
  sources: Map<string, StepSource[]>;
}

/**
 * The Steps page's read model. Every step's figures are read, since any
 * column sorts, but latency histograms and failures by class (the costliest
 * parts with thousands of steps: without them every step's figures can come
 * from the stored window sums, a row per step) only for the page shown,
 * unless the view sorts by latency.
 */
export async function getStepsPage(
  db: Executor,
  view: StepsView,
  requestedPage: string | string[] | undefined,
  now: Date,
): Promise<StepsPageView> {
  const { all, matching, anomalies, sortedByLatency } = await readMatchingSteps(db, view, now);
  const agents = [...new Set(all.map((row) => row.agent))].sort();
  const page = readStepsPage(requestedPage, matching.length);
  const shown = matching.slice((page - 1) * STEPS_PAGE_SIZE, page * STEPS_PAGE_SIZE);
  const [steps, pools, sources] = await Promise.all([
    sortedByLatency ? shown : withShownDetails(db, view.range, shown),
    getStepPoolCoverage(db, shown, view.range, now),
    getStepSources(db, shown),
  ]);
  return { agents, total: matching.length, page, steps, anomalies, pools, sources };
}

/**
 * Every step's figures over the view's window, and those the view's filters and search keep, in its sort; with
 * the anomaly rule's flags. Latency and failures by class are read only when the view sorts by latency.
 */
export async function readMatchingSteps(db: Executor, view: StepsView, now: Date) {
  const sortedByLatency = view.sort === 'latencyP50Ms' || view.sort === 'latencyP95Ms';
  const [withSource, all] = await Promise.all([
    view.source ? getStepsWithSource(db, view.source) : undefined,
    getStepStats(db, view.range, { latency: sortedByLatency, failureClasses: sortedByLatency }),
  ]);
  // Over the last 24 hours every step's figures are the anomaly rule's recent ones: not read twice.
  const anomalies = await getStepAnomalies(db, now, {
    recentSums: view.window === '24h' ? asRecentSums(all) : undefined,
  });
  const matching = applyStepsView(
    all.filter(
      (row) => (!view.agent || row.agent === view.agent) && (!withSource || withSource.has(`${row.agent}/${row.step}`)),
    ),
    view,
  );
  return { all, matching, anomalies, sortedByLatency };
}

/** Applies the search and the sort; nulls (no data) always sort last. */
export function applyStepsView(steps: StepStats[], view: Pick<StepsView, 'search' | 'sort' | 'dir'>): StepStats[] {
  const needle = view.search?.toLowerCase();
  const matching = needle ? steps.filter((row) => `${row.agent} ${row.step}`.toLowerCase().includes(needle)) : steps;
  const direction = view.dir === 'asc' ? 1 : -1;
  return [...matching].sort((a, b) => {
    const left = a[view.sort];
    const right = b[view.sort];
    if (left === right) return a.agent.localeCompare(b.agent) || a.step.localeCompare(b.step);
    if (left === null) return 1;
    if (right === null) return -1;
    return (typeof left === 'string' ? left.localeCompare(String(right)) : Number(left) - Number(right)) * direction;
  });
}

/** Steps' figures as the anomaly rule's sums for its recent window (lib/rollups/step-anomalies.ts). */
function asRecentSums(steps: StepStats[]): BaselineDaySums[] {
  return steps.map((row) => ({
    agent: row.agent,
    step: row.step,
    label: 'recent',
    attempts: String(row.attempts),
    spend: String(row.totalSpendMicros),
    retry_spend: String(row.retrySpendMicros),
  }));
}
