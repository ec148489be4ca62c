import { sql } from 'drizzle-orm';
import { judgeAnomaly } from '../anomaly';
import type { Executor } from '../db/client';
import {
  BASELINE_DAYS,
  type BaselineDaySums,
  type BaselineShares,
  baselineEndFor,
  readStoredBaselines,
  retryShare,
  sharesOfDays,
} from './anomaly-baselines';
import type { LabelledWindow } from './segments';
import { planFigures } from './figures';

const DAY_MS = 24 * 3_600_000;

export interface StepAnomalyReading {
  agent: string;
  step: string;
  recentShare: number;
  baseline: number;
  threshold: number;
}

/**
 * Steps whose retry share of spend in the 24 hours before `now` is well above
 * their own previous 7 days (the rule in packages/engine/src/anomaly.ts). The 7 baseline days
 * are whole-hour aligned 24-hour spans just before the last 24 hours, so they
 * are read from rollups alone (the gap is under an hour): from the sums the
 * rollup pass stores for them (packages/engine/src/rollups/anomaly-baselines.ts), or, when the
 * hour has turned since its last pass, from the hourly rollups. Shared by the
 * console's read model (lib/queries/anomalies.ts) and the alert sweep, which
 * runs in plain Node where the read models' server-only marker would throw.
 */
export async function findStepAnomalies(
  db: Executor,
  now: Date,
  options: {
    /** Read the raw log alone (the benchmark's ceiling and the exactness tests). */
    rawOnly?: boolean;
    /** The last 24 hours' sums per step when the caller has read them already (label 'recent'). */
    recentSums?: BaselineDaySums[];
  } = {},
): Promise<StepAnomalyReading[]> {
  const recent = { label: 'recent', from: new Date(now.getTime() - DAY_MS), to: now };
  const baselineEnd = baselineEndFor(now).getTime();
  const baselineDays = Array.from({ length: BASELINE_DAYS }, (_, day) => ({
    label: String(day),
    from: new Date(baselineEnd - (day + 1) * DAY_MS),
    to: new Date(baselineEnd - day * DAY_MS),
  }));
  let recentRows: BaselineDaySums[];
  let baselines: BaselineShares[];
  if (options.rawOnly) {
    const rows = await sumPerStep(db, [recent, ...baselineDays], true);
    recentRows = rows.filter((row) => row.label === 'recent');
    baselines = sharesOfDays(rows.filter((row) => row.label !== 'recent'));
  } else {
    const [recentSums, stored] = await Promise.all([
      options.recentSums ?? sumPerStep(db, [recent], false),
      readStoredBaselines(db, new Date(baselineEnd)),
    ]);
    recentRows = recentSums;
    baselines = stored ?? sharesOfDays(await sumPerStep(db, baselineDays, false));
  }

  const baselineOf = new Map(baselines.map((entry) => [`${entry.agent}/${entry.step}`, entry.shares]));
  const anomalies: StepAnomalyReading[] = [];
  for (const row of recentRows) {
    const recentShare = retryShare(Number(row.spend), Number(row.retry_spend));
    const verdict = judgeAnomaly({
      recentShare,
      recentAttempts: Number(row.attempts),
      baselineShares: baselineOf.get(`${row.agent}/${row.step}`) ?? [],
    });
    if (verdict.anomalous) {
      anomalies.push({
        agent: row.agent,
        step: row.step,
        recentShare,
        baseline: verdict.baseline,
        threshold: verdict.threshold,
      });
    }
  }
  return anomalies;
}

/** Attempts, spend and retry spend per (agent, step) in each labelled window. */
export async function sumPerStep(
  db: Executor,
  windows: LabelledWindow[],
  rawOnly: boolean,
): Promise<BaselineDaySums[]> {
  const plan = await planFigures(db, { windows, rawOnly });
  return db.execute<BaselineDaySums>(sql`
    select agent, step, label, sum(attempts)::text as attempts, sum(cost_micros)::text as spend,
      sum(retry_cost_micros)::text as retry_spend
    from ${plan.figures} as figures
    group by agent, step, label`);
}
