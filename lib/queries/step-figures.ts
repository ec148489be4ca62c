import 'server-only';
import { sql } from 'drizzle-orm';
import type { Executor } from '@holdfast/engine/db';
import { COUNT_FIGURES, type ErrorClass, FIGURES } from '@holdfast/engine/db/schema';
import { summedFigures } from '@holdfast/engine/rollups';
import { planFigures, type StepName } from '@holdfast/engine/rollups';
import { type LatencyHistogram, percentileMs, readStepHistograms } from '@holdfast/engine/rollups';
import { previousRangeOf, type TimeRange } from '@holdfast/protocol/time-window';
import type { ReadOptions } from './read-options';

/** Per (agent, step) figures over a window: the API's step stats (lib/queries/step-stats.ts). */
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

/** A step's figures over the previous window of equal length, to compare the window's with. */
export type PreviousWindowFigures = Pick<
  StepStats,
  | 'attempts'
  | 'retries'
  | 'retryRate'
  | 'failures'
  | 'totalSpendMicros'
  | 'retrySpendMicros'
  | 'retryShareOfSpend'
  | 'firstTrySuccess'
> & {
  /** Null when failure classes were not read (the same as the window's). */
  failedSpendMicros: number | null;
};

/** A step's figures, with what its failed attempts cost and, when asked for, the previous window's figures. */
export interface ComparedStepStats extends StepStats {
  /**
   * Cost of the attempts that failed (outcome 'failed', which always carries an error class: the rollups keep
   * cost per error class). Null when failure classes were not read.
   */
  failedSpendMicros: number | null;
  /** The previous window's figures (zeros where the step had no attempts then); null when not compared. */
  previous: PreviousWindowFigures | null;
  /** Retry spend minus the previous window's, the Steps page's "sort by change"; null when not compared. */
  retrySpendChangeMicros: number | null;
}

export interface StepFiguresOptions extends ReadOptions {
  /** false skips the latency histograms (every step's percentiles are then null). */
  latency?: boolean;
  /** false leaves failuresByClass empty and failedSpendMicros null (failures are still counted). */
  failureClasses?: boolean;
  /** Also read the previous window of equal length, in the same statement (planFigures' labelled windows). */
  previousWindow?: boolean;
}

interface FigureRow {
  [column: string]: unknown;
  label: 'window' | 'previous';
  agent: string;
  step: string;
  error_class: ErrorClass | null;
  /** Each count figure, by its column (attempts, retries, …). */
  /** The step's spend over every class: summed exactly in SQL (numeric), made a JS number once. */
  step_cost_micros: string;
  step_retry_cost_micros: string;
  step_failed_cost_micros: string;
}

type CountSums = Record<(typeof COUNT_FIGURES)[number], number>;

interface Sums extends CountSums {
  spend: number;
  retrySpend: number;
  failedSpend: number;
  failuresByClass: Partial<Record<ErrorClass, number>>;
}

const emptySums = (): Sums => ({
  ...(Object.fromEntries(COUNT_FIGURES.map((name) => [name, 0])) as CountSums),
  spend: 0,
  retrySpend: 0,
  failedSpend: 0,
  failuresByClass: {},
});

const share = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Per (agent, step) figures for attempts started in [from, to), most retry spend first, and with
 * `previousWindow` the same figures over the range of equal length before it, both windows planned
 * by one planFigures call and summed by one statement (as the Overview compares its windows). Only
 * steps with attempts in the window are returned. Counts and spend are summed exactly in SQL (spend
 * as numeric, never cast to bigint); latency percentiles come from log-scale histograms (±2.4%).
 */
export async function readStepFigures(
  db: Executor,
  range: TimeRange & { agent?: string; steps?: StepName[] },
  options: StepFiguresOptions = {},
): Promise<ComparedStepStats[]> {
  const { windowSums, previousSums, histograms, byClass } = await readStepSums(db, range, options);
  return [...windowSums.entries()]
    .filter(([, sums]) => sums.attempts > 0)
    .map(([key, sums]): ComparedStepStats => {
      const histogram = histograms.get(key) ?? new Map<number, number>();
      const slash = key.indexOf('/');
      const previous = options.previousWindow ? windowFigures(previousSums.get(key) ?? emptySums(), byClass) : null;
      return {
        // Keyed `agent/step`: agent names hold no slash (packages/protocol/src/names.ts).
        agent: key.slice(0, slash),
        step: key.slice(slash + 1),
        ...windowFigures(sums, byClass),
        failuresByClass: sums.failuresByClass,
        latencyP50Ms: percentileMs(histogram, 0.5),
        latencyP95Ms: percentileMs(histogram, 0.95),
        previous,
        retrySpendChangeMicros: previous ? sums.retrySpend - previous.retrySpendMicros : null,
      };
    })
    .sort(
      (a, b) =>
        b.retrySpendMicros - a.retrySpendMicros ||
        b.attempts - a.attempts ||
        compareText(a.agent, b.agent) ||
        compareText(a.step, b.step),
    );
}

/** Each step's summed figures in the window and (with `previousWindow`) the window before, keyed `agent/step`. */
async function readStepSums(
  db: Executor,
  range: TimeRange & { agent?: string; steps?: StepName[] },
  options: StepFiguresOptions,
) {
  const byClass = options.failureClasses !== false;
  const plan = await planFigures(db, {
    windows: [
      { label: 'window', from: range.from, to: range.to },
      ...(options.previousWindow ? [{ label: 'previous', ...previousRangeOf(range) }] : []),
    ],
    agent: range.agent,
    steps: range.steps,
    rawOnly: options.rawOnly,
  });
  const classColumn = byClass ? sql`error_class` : sql`null::error_class`;
  const [rows, histograms] = await Promise.all([
    db.execute<FigureRow>(sql`
      select label, agent, step, ${classColumn} as error_class, ${summedFigures(COUNT_FIGURES)},
        sum(sum(cost_micros)) over per_step as step_cost_micros,
        sum(sum(retry_cost_micros)) over per_step as step_retry_cost_micros,
        sum(sum(cost_micros) filter (where error_class is not null)) over per_step as step_failed_cost_micros
      from ${plan.figures} as figures
      group by 1, 2, 3, 4
      window per_step as (partition by label, agent, step)`),
    options.latency === false
      ? new Map<string, LatencyHistogram>()
      : // The previous window's latency is not compared: its histograms stay out of the window's.
        readStepHistograms(db, sql`(select * from ${plan.latency} as both_windows where label = 'window')`),
  ]);

  const windowSums = new Map<string, Sums>();
  const previousSums = new Map<string, Sums>();
  for (const row of rows) {
    const key = `${row.agent}/${row.step}`;
    const sumsOf = row.label === 'window' ? windowSums : previousSums;
    const sums = sumsOf.get(key) ?? emptySums();
    for (const name of COUNT_FIGURES) sums[name] += Number(row[FIGURES[name].column]);
    sums.spend = Number(row.step_cost_micros);
    sums.retrySpend = Number(row.step_retry_cost_micros);
    sums.failedSpend = Number(row.step_failed_cost_micros ?? 0);
    if (row.error_class && Number(row.failures) > 0) sums.failuresByClass[row.error_class] = Number(row.failures);
    sumsOf.set(key, sums);
  }
  return { windowSums, previousSums, histograms, byClass };
}

function windowFigures(sums: Sums, byClass: boolean): PreviousWindowFigures {
  return {
    attempts: sums.attempts,
    retries: sums.retries,
    retryRate: share(sums.retries, sums.attempts),
    failures: sums.failures,
    totalSpendMicros: sums.spend,
    retrySpendMicros: sums.retrySpend,
    retryShareOfSpend: share(sums.retrySpend, sums.spend),
    firstTrySuccess: sums.executions === 0 ? null : sums.firstTrySuccesses / sums.executions,
    failedSpendMicros: byClass ? sums.failedSpend : null,
  };
}

/** An agent's figures over a window: its steps' summed, with the previous window's. */
export interface AgentFigures extends PreviousWindowFigures {
  agent: string;
  /** Its steps with attempts in the window. */
  steps: number;
  previous: PreviousWindowFigures;
}

/**
 * Per agent, the figures of its steps summed exactly (counts, spend, and first-try success from its executions,
 * never an average of its steps' rates), with the previous window of equal length; agents with attempts in the
 * window, most spend first.
 */
export async function readAgentFigures(db: Executor, range: TimeRange & { agent?: string }): Promise<AgentFigures[]> {
  const { windowSums, previousSums } = await readStepSums(db, range, { latency: false, previousWindow: true });
  const byAgent = new Map<string, { window: Sums; previous: Sums; steps: number }>();
  for (const [key, sums] of windowSums) {
    if (sums.attempts === 0) continue;
    const agent = key.slice(0, key.indexOf('/'));
    const totals = byAgent.get(agent) ?? { window: emptySums(), previous: emptySums(), steps: 0 };
    addSums(totals.window, sums);
    addSums(totals.previous, previousSums.get(key) ?? emptySums());
    totals.steps += 1;
    byAgent.set(agent, totals);
  }
  // A step only the previous window had still counts in its agent's previous figures.
  for (const [key, sums] of previousSums) {
    const agent = key.slice(0, key.indexOf('/'));
    const totals = byAgent.get(agent);
    if (totals && !windowSums.get(key)?.attempts) addSums(totals.previous, sums);
  }
  return [...byAgent.entries()]
    .map(([agent, totals]) => ({
      agent,
      steps: totals.steps,
      ...windowFigures(totals.window, true),
      previous: windowFigures(totals.previous, true),
    }))
    .sort((a, b) => b.totalSpendMicros - a.totalSpendMicros || compareText(a.agent, b.agent));
}

function addSums(into: Sums, sums: Sums) {
  for (const name of COUNT_FIGURES) into[name] += sums[name];
  into.spend += sums.spend;
  into.retrySpend += sums.retrySpend;
  into.failedSpend += sums.failedSpend;
  for (const [errorClass, count] of Object.entries(sums.failuresByClass) as [ErrorClass, number][])
    into.failuresByClass[errorClass] = (into.failuresByClass[errorClass] ?? 0) + count;
}
