import 'server-only';
import type { Executor } from '@holdfast/engine/db';
import type { BaselineDaySums } from '@holdfast/engine/rollups';
import { sumPerStep } from '@holdfast/engine/rollups';
import { resolveTimeWindow, type TimeWindowName } from '@holdfast/protocol/time-window';
import { getStepAnomalies, type StepAnomaly } from './anomalies';
import type { ReadOptions } from './read-options';
import type { StepName } from '@holdfast/engine/rollups';
import { getStepStats, type StepStats } from './step-stats';

/** Steps the Overview lists by retry spend; the Steps page lists them all. */
export const TOP_STEPS_SHOWN = 10;
/** Flagged steps outside the top listed after it, at most. */
const FLAGGED_SHOWN = 10;

/** What the Overview shows and polls: a window's top steps by retry spend, and the flagged steps outside them. */
export interface TopStepsView {
  window: TimeWindowName;
  from: string;
  to: string;
  /** Most retry spend first, as on the Steps page: at most TOP_STEPS_SHOWN. */
  steps: StepStats[];
  /** Steps flagged by the anomaly rule that are not among `steps` (at most FLAGGED_SHOWN, most retry spend first). */
  flaggedElsewhere: StepStats[];
  /** Steps with attempts in the window: how many the Steps page lists. */
  stepCount: number;
  /** Steps flagged by the anomaly rule, keyed `agent/step`. */
  anomalies: Record<string, StepAnomaly>;
}

/**
 * The Overview's step panel. With thousands of steps it must not read and
 * render every one: the top steps are chosen from the window's sums per step
 * (a stored span's rows, plus the edges), and only the chosen steps are read
 * in full (latency histograms included).
 */
export async function getTopStepsView(
  db: Executor,
  window: TimeWindowName,
  now: Date,
  options: ReadOptions = {},
): Promise<TopStepsView> {
  const range = resolveTimeWindow(window, now);
  // The window's sums per step, read once: they choose the top steps, and over the last 24 hours they are
  // also the anomaly rule's recent figures (read again otherwise).
  const windowSums = await sumPerStep(db, [{ label: 'recent', ...range }], options.rawOnly ?? false);
  const anomalies = await getStepAnomalies(db, now, {
    ...options,
    recentSums: window === '24h' ? windowSums : undefined,
  });
  const { top, stepCount } = chooseTopSteps(windowSums);
  const shown = new Set(top.map(({ agent, step }) => `${agent}/${step}`));
  const flagged = [...anomalies.keys()]
    .filter((key) => !shown.has(key))
    .map((key): StepName => {
      const slash = key.indexOf('/');
      return { agent: key.slice(0, slash), step: key.slice(slash + 1) };
    });
  const wanted = [...top, ...flagged];
  const stats = wanted.length === 0 ? [] : await getStepStats(db, { ...range, steps: wanted }, options);
  return {
    window,
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    steps: stats.filter((row) => shown.has(`${row.agent}/${row.step}`)),
    // A step flagged on the last 24 hours may have no attempts in a shorter window: it is not listed then.
    flaggedElsewhere: stats.filter((row) => !shown.has(`${row.agent}/${row.step}`)).slice(0, FLAGGED_SHOWN),
    stepCount,
    anomalies: Object.fromEntries(anomalies),
  };
}

/** Byte order of the UTF-8 names, as PostgreSQL's "C" collation sorts them. */
const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * The top steps in the Steps page's default order (retry spend, then
 * attempts, then names in byte order), and how many steps had attempts.
 */
function chooseTopSteps(sums: BaselineDaySums[]): { top: StepName[]; stepCount: number } {
  const steps = sums
    .map((row) => ({
      agent: row.agent,
      step: row.step,
      attempts: BigInt(row.attempts),
      retrySpend: BigInt(row.retry_spend),
    }))
    .filter((row) => row.attempts > 0n);
  steps.sort(
    (a, b) =>
      (a.retrySpend === b.retrySpend ? 0 : a.retrySpend > b.retrySpend ? -1 : 1) ||
      (a.attempts === b.attempts ? 0 : a.attempts > b.attempts ? -1 : 1) ||
      byBytes(a.agent, b.agent) ||
      byBytes(a.step, b.step),
  );
  return { top: steps.slice(0, TOP_STEPS_SHOWN).map(({ agent, step }) => ({ agent, step })), stepCount: steps.length };
}
