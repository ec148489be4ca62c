import 'server-only';
import type { Executor } from '@holdfast/engine/db';
import type { StepName } from '@holdfast/engine/rollups';
import { getStepAnomalies, type StepAnomaly } from './anomalies';
import { type ComparedStepStats, readStepFigures, type StepStats } from './step-figures';
import type { ReadOptions } from './read-options';
import { resolveTimeWindow, type TimeRange, type TimeWindowName } from '@holdfast/protocol/time-window';

/** A step's figures over a window, as the API gives them: kept beside the read that makes them. */
export type { StepStats } from './step-figures';

/**
 * Per (agent, step) figures for attempts started in [from, to), most retry
 * spend first. Counts and spend are summed exactly in SQL (spend as numeric)
 * and exact as JS numbers up to 2^53 (9 billion dollars); a larger sum is the
 * nearest JS number to it (15-16 significant digits). Latency percentiles come
 * from log-scale histograms (within ±2.4%, see packages/engine/src/rollups/latency-buckets.ts).
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
     * counted) and sums each step's classes in SQL. The Steps page reads
     * neither for every step, only for the rows it shows (withShownDetails).
     */
    failureClasses?: boolean;
  } = {},
): Promise<StepStats[]> {
  const figures = await readStepFigures(db, range, options);
  // The API's step stats are exactly StepStats: the Steps page's extra figures stay out of them.
  return figures.map(({ failedSpendMicros, previous, retrySpendChangeMicros, ...stats }) => stats);
}

/**
 * The given rows with their failures by class, failed spend, latency
 * percentiles and previous window read, for the steps among them alone: a
 * page of a list sorted by other columns reads every step's figures without
 * classes or latency (readStepFigures with latency and failureClasses false),
 * then this. The rows' own figures are kept as given.
 */
export async function withShownDetails(
  db: Executor,
  range: TimeRange,
  rows: ComparedStepStats[],
): Promise<ComparedStepStats[]> {
  if (rows.length === 0) return rows;
  const detailed = await readStepFigures(
    db,
    { ...range, steps: rows.map(({ agent, step }) => ({ agent, step })) },
    { previousWindow: true },
  );
  const byKey = new Map(detailed.map((row) => [`${row.agent}/${row.step}`, row]));
  return rows.map((row) => {
    const details = byKey.get(`${row.agent}/${row.step}`);
    return {
      ...row,
      failuresByClass: details?.failuresByClass ?? {},
      failedSpendMicros: details?.failedSpendMicros ?? null,
      latencyP50Ms: details?.latencyP50Ms ?? null,
      latencyP95Ms: details?.latencyP95Ms ?? null,
      previous: details?.previous ?? row.previous,
      retrySpendChangeMicros: details?.retrySpendChangeMicros ?? row.retrySpendChangeMicros,
    };
  });
}

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
    // Keyed `agent/step`: agent names hold no slash (packages/protocol/src/names.ts).
    anomalies: Object.fromEntries([...anomalies].filter(([key]) => visible(key.slice(0, key.indexOf('/'))))),
  };
}
