import { sql } from 'drizzle-orm';
import { judgeAnomaly } from '../anomaly';
import type { Executor } from '../db/client';
import { planFigures } from './figures';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export interface StepAnomalyReading {
  agent: string;
  step: string;
  recentShare: number;
  baseline: number;
  threshold: number;
}

/**
 * Steps whose retry share of spend in the 24 hours before `now` is well above
 * their own previous 7 days (the rule in lib/anomaly.ts). The 7 baseline days
 * are whole-hour aligned 24-hour spans just before the last 24 hours, so they
 * are read from rollups alone (the gap is under an hour). Shared by the
 * console's read model (lib/queries/anomalies.ts) and the alert sweep, which
 * runs in plain Node where the read models' server-only marker would throw.
 */
export async function findStepAnomalies(
  db: Executor,
  now: Date,
  /** rawOnly: read the raw log alone (the benchmark's ceiling and the exactness tests). */
  options: { rawOnly?: boolean } = {},
): Promise<StepAnomalyReading[]> {
  const recentFrom = new Date(now.getTime() - DAY_MS);
  const baselineEnd = Math.floor(recentFrom.getTime() / HOUR_MS) * HOUR_MS;
  const windows = [
    { label: 'recent', from: recentFrom, to: now },
    ...Array.from({ length: 7 }, (_, day) => ({
      label: String(day),
      from: new Date(baselineEnd - (day + 1) * DAY_MS),
      to: new Date(baselineEnd - day * DAY_MS),
    })),
  ];
  const plan = await planFigures(db, { windows, rawOnly: options.rawOnly });
  const rows = await db.execute<{
    agent: string;
    step: string;
    label: string;
    attempts: string;
    spend: string;
    retry_spend: string;
  }>(sql`
    select agent, step, label, sum(attempts) as attempts, sum(cost_micros) as spend, sum(retry_cost_micros) as retry_spend
    from ${plan.figures} as figures
    group by agent, step, label`);

  const byStep = new Map<
    string,
    { agent: string; step: string; recent?: { attempts: number; share: number }; baseline: number[] }
  >();
  for (const row of rows) {
    const key = `${row.agent}/${row.step}`;
    const entry = byStep.get(key) ?? { agent: row.agent, step: row.step, baseline: [] };
    const spend = Number(row.spend);
    const share = spend === 0 ? 0 : Number(row.retry_spend) / spend;
    if (row.label === 'recent') entry.recent = { attempts: Number(row.attempts), share };
    else if (Number(row.attempts) > 0) entry.baseline.push(share);
    byStep.set(key, entry);
  }

  const anomalies: StepAnomalyReading[] = [];
  for (const entry of byStep.values()) {
    if (!entry.recent) continue;
    const verdict = judgeAnomaly({
      recentShare: entry.recent.share,
      recentAttempts: entry.recent.attempts,
      baselineShares: entry.baseline,
    });
    if (verdict.anomalous) {
      anomalies.push({
        agent: entry.agent,
        step: entry.step,
        recentShare: entry.recent.share,
        baseline: verdict.baseline,
        threshold: verdict.threshold,
      });
    }
  }
  return anomalies;
}
