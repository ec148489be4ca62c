import 'server-only';
import type { Executor } from '@holdfast/engine/db';
import type { BaselineDaySums, StepName } from '@holdfast/engine/rollups';
import { readStepsPage, type SortColumn, STEPS_PAGE_SIZE, type StepsView } from '../filters/steps';
import { getStepAnomalies, type StepAnomaly } from './anomalies';
import { getStepPoolCoverage, type StepPoolCoverage } from './retry-pools';
import { getStepOwners, listOwnerChoices, type StepOwnerView } from './step-owners';
import {
  getStepCostSources,
  getStepSources,
  getStepsWithCostSource,
  getStepsWithSource,
  type StepCostSource,
  type StepSource,
} from './step-sources';
import { type ComparedStepStats, readStepFigures } from './step-figures';
import { getRetrySpendByCause, type RetrySpendByCause } from './retry-spend-by-cause';
import { type StepStats, withShownDetails } from './step-stats';

/** What the Steps page shows: one page of the view's steps, and what its filters and pager need. */
export interface StepsPageView {
  /** Every agent with attempts in the window, for the agent filter. */
  agents: string[];
  /** Steps matching the view's filters, on every page. */
  total: number;
  page: number;
  steps: ComparedStepStats[];
  /** The shown steps' retry spend by the failure that caused each retry (lib/queries/retry-spend-by-cause.ts). */
  retryCauses: RetrySpendByCause;
  anomalies: Map<string, StepAnomaly>;
  pools: Map<string, StepPoolCoverage>;
  /** The ways the shown steps' attempts reached Holdfast, keyed `agent/step`. */
  sources: Map<string, StepSource[]>;
  /** How the shown steps' attempts were costed, keyed `agent/step`. */
  costSources: Map<string, StepCostSource[]>;
  /** The shown steps' owners, keyed `agent/step`. */
  owners: Map<string, StepOwnerView>;
  /** The owners the window's agents and their steps answer to, for the owner filter. */
  ownerChoices: string[];
  /** Every matching step's figures summed (on every page): an agent's, a team's or a search's subtotal. */
  subtotal: StepsSubtotal;
}

/** Sums over a set of steps; money summed exactly in integer micro-dollars. */
export interface StepsSubtotal {
  steps: number;
  attempts: number;
  retries: number;
  totalSpendMicros: number;
  retrySpendMicros: number;
}

/** The steps' figures summed. */
export function subtotalOf(steps: ComparedStepStats[]): StepsSubtotal {
  const sum = (figure: (row: ComparedStepStats) => number) => steps.reduce((total, row) => total + figure(row), 0);
  return {
    steps: steps.length,
    attempts: sum((row) => row.attempts),
    retries: sum((row) => row.retries),
    totalSpendMicros: sum((row) => row.totalSpendMicros),
    retrySpendMicros: sum((row) => row.retrySpendMicros),
  };
}

/**
 * The Steps page's read model. Every step's figures, and the previous
 * window's, are read, since any column (and the change in retry spend)
 * sorts; but latency histograms and failures by class (the costliest parts
 * with thousands of steps) and retry spend by cause only for the page shown,
 * unless the view sorts by latency or failed spend.
 */
export async function getStepsPage(
  db: Executor,
  view: StepsView,
  requestedPage: string | string[] | undefined,
  now: Date,
  /** The owners the signed-in person answers as (their teams and themselves): the owner filter's `mine`. */
  myOwners: string[] = [],
): Promise<StepsPageView> {
  const { all, matching, anomalies, readsDetails, owners } = await readMatchingSteps(db, view, now, myOwners);
  const agents = [...new Set(all.map((row) => row.agent))].sort();
  const page = readStepsPage(requestedPage, matching.length);
  const shown = matching.slice((page - 1) * STEPS_PAGE_SIZE, page * STEPS_PAGE_SIZE);
  const [steps, retryCauses, pools, sources, costSources, shownOwners, ownerChoices] = await Promise.all([
    readsDetails ? shown : withShownDetails(db, view.range, shown),
    getRetrySpendByCause(db, view.range, shown),
    getStepPoolCoverage(db, shown, view.range, now),
    getStepSources(db, shown),
    getStepCostSources(db, shown),
    owners ?? getStepOwners(db, shown),
    listOwnerChoices(db, agents),
  ]);
  return {
    agents,
    total: matching.length,
    page,
    steps,
    retryCauses,
    anomalies,
    pools,
    sources,
    costSources,
    owners: shownOwners,
    ownerChoices,
    subtotal: subtotalOf(matching),
  };
}

/**
 * What the Steps page's CSV export holds: every matching step (not only the page shown) with its details, and
 * their retry spend by cause; undefined when more than `cap` steps match. Run it inside one snapshot.
 */
export async function readStepsExport(db: Executor, view: StepsView, now: Date, cap: number, myOwners: string[] = []) {
  const { matching, owners } = await readMatchingSteps(db, view, now, myOwners);
  if (matching.length > cap) return undefined;
  const [steps, retryCauses, exportedOwners, costSources] = await Promise.all([
    withShownDetails(db, view.range, matching),
    getRetrySpendByCause(db, view.range, matching),
    owners ?? getStepOwners(db, matching),
    getStepCostSources(db, matching),
  ]);
  return { steps, retryCauses, owners: exportedOwners, costSources };
}

/**
 * Every step's figures over the view's window and the previous window of equal length, and those the view's
 * filters and search keep, in its sort; with the anomaly rule's flags. Latency, failures by class and failed
 * spend are read for every step only when the view sorts by one of them (readsDetails).
 */
export async function readMatchingSteps(db: Executor, view: StepsView, now: Date, myOwners: string[] = []) {
  const readsDetails = detailSorts.has(view.sort);
  const [withSource, withCostSource, all] = await Promise.all([
    view.source ? getStepsWithSource(db, view.source) : undefined,
    view.cost ? getStepsWithCostSource(db, view.cost) : undefined,
    readStepFigures(db, view.range, { latency: readsDetails, failureClasses: readsDetails, previousWindow: true }),
  ]);
  // Every step's owner only when the view filters by owner; otherwise the page reads its shown steps' alone.
  const owners = view.owner ? await getStepOwners(db, all) : undefined;
  const wantedOwners = view.owner === 'mine' ? new Set(myOwners) : view.owner ? new Set([view.owner]) : undefined;
  const ownedAsWanted = (row: StepName) =>
    !wantedOwners || wantedOwners.has(owners?.get(`${row.agent}/${row.step}`)?.owner ?? '');
  // Over the last 24 hours every step's figures are the anomaly rule's recent ones: not read twice.
  const anomalies = await getStepAnomalies(db, now, {
    recentSums: view.window === '24h' ? asRecentSums(all) : undefined,
  });
  const matching = applyStepsView(
    all.filter(
      (row) =>
        (!view.agent || row.agent === view.agent) &&
        (!withSource || withSource.has(`${row.agent}/${row.step}`)) &&
        (!withCostSource || withCostSource.has(`${row.agent}/${row.step}`)) &&
        ownedAsWanted(row),
    ),
    view,
  );
  return { all, matching, anomalies, readsDetails, owners };
}

/** A row the Steps page sorts: the API's step stats, or the page's with their failed spend and change. */
type SortableStepRow = StepStats & Partial<Pick<ComparedStepStats, 'failedSpendMicros' | 'retrySpendChangeMicros'>>;

/** Sorts by a figure read only with latency histograms or failure classes: every step's details are read then. */
const detailSorts = new Set<SortColumn>(['latencyP50Ms', 'latencyP95Ms', 'failedSpendMicros']);

/** Applies the search and the sort; nulls (no data) always sort last. */
export function applyStepsView<Row extends SortableStepRow>(
  steps: Row[],
  view: Pick<StepsView, 'search' | 'sort' | 'dir'>,
): Row[] {
  const needle = view.search?.toLowerCase();
  const matching = needle ? steps.filter((row) => `${row.agent} ${row.step}`.toLowerCase().includes(needle)) : steps;
  const direction = view.dir === 'asc' ? 1 : -1;
  return [...matching].sort((a, b) => {
    const left = a[view.sort] ?? null;
    const right = b[view.sort] ?? null;
    if (left === right) return a.agent.localeCompare(b.agent) || a.step.localeCompare(b.step);
    if (left === null) return 1;
    if (right === null) return -1;
    return (typeof left === 'string' ? left.localeCompare(String(right)) : Number(left) - Number(right)) * direction;
  });
}

/** Steps' figures as the anomaly rule's sums for its recent window (packages/engine/src/rollups/step-anomalies.ts). */
function asRecentSums(steps: ComparedStepStats[]): BaselineDaySums[] {
  return steps.map((row) => ({
    agent: row.agent,
    step: row.step,
    label: 'recent',
    attempts: String(row.attempts),
    spend: String(row.totalSpendMicros),
    retry_spend: String(row.retrySpendMicros),
  }));
}
