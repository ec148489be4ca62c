import 'server-only';
import { sql } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { planFigures } from '../rollups/figures';
import { resolveTimeWindow, type TimeWindowName } from '../time-window';
import { getStepAnomalies, type StepAnomaly } from './anomalies';
import type { ReadOptions } from './read-options';
import { getStepStats, type StepName, type StepStats } from './step-stats';

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
 * render every one: the top steps are chosen in SQL from the window's sums
 * (a stored span's row per step and class, plus the raw edges), and only the
 * chosen steps are read in full (latency histograms included).
 */
export async function getTopStepsView(
  db: Executor,
  window: TimeWindowName,
  now: Date,
  options: ReadOptions = {},
): Promise<TopStepsView> {
  const range = resolveTimeWindow(window, now);
  const [{ top, stepCount }, anomalies] = await Promise.all([
    chooseTopSteps(db, range, options),
    getStepAnomalies(db, now, options),
  ]);
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

/** The top steps in the Steps page's default order (retry spend, attempts, then names in code-unit order), and how many steps there are. */
async function chooseTopSteps(db: Executor, range: { from: Date; to: Date }, options: ReadOptions) {
  const plan = await planFigures(db, { windows: [{ label: 'window', ...range }], rawOnly: options.rawOnly });
  const rows = await db.execute<{ agent: string; step: string; step_count: number }>(sql`
    select agent, step, (count(*) over ())::int as step_count
    from ${plan.figures} as figures
    group by agent, step
    having sum(attempts) > 0
    order by sum(retry_cost_micros) desc, sum(attempts) desc, agent collate "C", step collate "C"
    limit ${TOP_STEPS_SHOWN}`);
  return {
    top: rows.map(({ agent, step }) => ({ agent, step })),
    stepCount: rows[0]?.step_count ?? 0,
  };
}
