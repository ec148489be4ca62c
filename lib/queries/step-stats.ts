import 'server-only';
import { sql } from 'drizzle-orm';
import type { Executor } from '../db/client';
import type { ErrorClass } from '../db/schema';
import { planFigures, type StepName } from '../rollups/figures';
import { type LatencyHistogram, percentileMs, readStepHistograms } from '../rollups/latency-buckets';
import { getStepAnomalies, type StepAnomaly } from './anomalies';
import type { ReadOptions } from './read-options';
import { resolveTimeWindow, type TimeRange, type TimeWindowName } from '../time-window';

export interface StepStats {
  agent: string;
  step: string;
  attempts: number;
  /** Attempts with attempt number > 1. */
  retries: number;
  /** retries / attempts, in [0, 1]. */
  retryRate: number;
  failures: number;
  totalSpendMicros: number;
  /** Cost of the retries alone: what repeating work cost. */
  retrySpendMicros: number;
  /** retrySpend / totalSpend, in [0, 1]. */
  retryShareOfSpend: number;
  /** Executions (attempt 1 in the window) that succeeded on attempt 1, over executions; null without executions. */
  firstTrySuccess: number | null;
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
  /** Failed attempts per error class. */
  failuresByClass: Partial<Record<ErrorClass, number>>;
}

interface FigureRow {
  [column: string]: unknown;
  agent: string;
  step: string;
  error_class: ErrorClass | null;
  attempts: string;
  retries: string;
  failures: string;
  executions: string;
  first_try_successes: string;
  /** The step's spend over every class: summed exactly in SQL (numeric), made a JS number once. */
  step_cost_micros: string;
  step_retry_cost_micros: string;
}

/**
 * Per (agent, step) figures for attempts started in [from, to), most retry
 * spend first. Counts and spend are summed exactly in SQL (spend as numeric)
 * and exact as JS numbers up to 2^53 (9 billion dollars); a larger sum is the
 * nearest JS number to it (15-16 significant digits). Latency percentiles come
 * from log-scale histograms (within ±2.4%, see lib/rollups/latency-buckets.ts).
 */
export async function getStepStats(
  db: Executor,
  range: TimeRange & { agent?: string; steps?: StepName[] },
  /**
   * latency: false skips the latency histograms (every step's percentiles are
   * then null): for a caller that sorts by other columns and reads the latency
   * of the rows it shows afterwards, as the Steps page does.
   */
  options: ReadOptions & {
    latency?: boolean;
    /**
     * failureClasses: false leaves failuresByClass empty (failures are still
     * counted). With latency: false too, every step's figures may come from
     * the rollup pass's stored window sums, one row per step (the Steps page
     * then reads both for the rows it shows: withShownDetails).
     */
    failureClasses?: boolean;
  } = {},
): Promise<StepStats[]> {
  const byClass = options.failureClasses !== false;
  const plan = await planFigures(db, {
    windows: [{ label: 'window', ...range }],
    agent: range.agent,
    steps: range.steps,
    rawOnly: options.rawOnly,
    acrossClasses: !byClass && options.latency === false,
  });
  const classColumn = byClass ? sql`error_class` : sql`null::error_class`;
  const [rows, histograms] = await Promise.all([
    db.execute<FigureRow>(sql`
      select agent, step, ${classColumn} as error_class, sum(attempts) as attempts, sum(retries) as retries,
        sum(failures) as failures, sum(executions) as executions, sum(first_try_successes) as first_try_successes,
        sum(sum(cost_micros)) over per_step as step_cost_micros, sum(sum(retry_cost_micros)) over per_step as step_retry_cost_micros
      from ${plan.figures} as figures
      group by 1, 2, 3
      window per_step as (partition by agent, step)`),
    options.latency === false ? new Map<string, LatencyHistogram>() : readStepHistograms(db, plan.latency),
  ]);

  const byStep = new Map<string, StepStats & { executions: number; firstTrySuccesses: number }>();
  for (const row of rows) {
    const key = `${row.agent}/${row.step}`;
    const entry = byStep.get(key) ?? {
      agent: row.agent,
      step: row.step,
      attempts: 0,
      retries: 0,
      retryRate: 0,
      failures: 0,
      totalSpendMicros: 0,
      retrySpendMicros: 0,
      retryShareOfSpend: 0,
      firstTrySuccess: null,
      latencyP50Ms: null,
      latencyP95Ms: null,
      failuresByClass: {},
      executions: 0,
      firstTrySuccesses: 0,
    };
    entry.attempts += Number(row.attempts);
    entry.retries += Number(row.retries);
    entry.failures += Number(row.failures);
    entry.totalSpendMicros = Number(row.step_cost_micros);
    entry.retrySpendMicros = Number(row.step_retry_cost_micros);
    entry.executions += Number(row.executions);
    entry.firstTrySuccesses += Number(row.first_try_successes);
    if (row.error_class && Number(row.failures) > 0) entry.failuresByClass[row.error_class] = Number(row.failures);
    byStep.set(key, entry);
  }

  return [...byStep.entries()]
    .map(([key, { executions, firstTrySuccesses, ...row }]) => {
      const histogram = histograms.get(key) ?? new Map<number, number>();
      return {
        ...row,
        retryRate: row.attempts === 0 ? 0 : row.retries / row.attempts,
        retryShareOfSpend: row.totalSpendMicros === 0 ? 0 : row.retrySpendMicros / row.totalSpendMicros,
        firstTrySuccess: executions === 0 ? null : firstTrySuccesses / executions,
        latencyP50Ms: percentileMs(histogram, 0.5),
        latencyP95Ms: percentileMs(histogram, 0.95),
      };
    })
    .filter((row) => row.attempts > 0)
    .sort(
      (a, b) =>
        b.retrySpendMicros - a.retrySpendMicros ||
        b.attempts - a.attempts ||
        compareText(a.agent, b.agent) ||
        compareText(a.step, b.step),
    );
}

/**
 * The given rows with their failures by class and latency percentiles read,
 * for the steps among them alone: a page of a list sorted by other columns
 * reads every step's figures without either (getStepStats with latency and
 * failureClasses false), then this. The rows' counts are kept as given.
 */
export async function withShownDetails(db: Executor, range: TimeRange, rows: StepStats[]): Promise<StepStats[]> {
  if (rows.length === 0) return rows;
  const detailed = await getStepStats(db, { ...range, steps: rows.map(({ agent, step }) => ({ agent, step })) });
  const byKey = new Map(detailed.map((row) => [`${row.agent}/${row.step}`, row]));
  return rows.map((row) => {
    const details = byKey.get(`${row.agent}/${row.step}`);
    return {
      ...row,
      failuresByClass: details?.failuresByClass ?? {},
      latencyP50Ms: details?.latencyP50Ms ?? null,
      latencyP95Ms: details?.latencyP95Ms ?? null,
    };
  });
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** What the Overview shows and polls: the stats of one named window, with its bounds. */
export interface StepStatsView {
  window: TimeWindowName;
  from: string;
  to: string;
  steps: StepStats[];
  /** Steps flagged by the anomaly rule, keyed `agent/step`. */
  anomalies: Record<string, StepAnomaly>;
}

export async function getStepStatsView(
  db: Executor,
  window: TimeWindowName,
  now: Date,
  /** agents: only these agents' steps (an API token limited to them); every agent when absent. */
  { agents, ...options }: ReadOptions & { agents?: readonly string[] } = {},
): Promise<StepStatsView> {
  const range = resolveTimeWindow(window, now);
  const [steps, anomalies] = await Promise.all([getStepStats(db, range, options), getStepAnomalies(db, now, options)]);
  const visible = (agent: string) => !agents || agents.includes(agent);
  return {
    window,
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    steps: steps.filter((row) => visible(row.agent)),
    // Keyed `agent/step`: agent names hold no slash (lib/core/kernel/names.ts).
    anomalies: Object.fromEntries([...anomalies].filter(([key]) => visible(key.slice(0, key.indexOf('/'))))),
  };
}
