import 'server-only';
import { sql } from 'drizzle-orm';
import { judgeAnomaly, type AnomalyVerdict } from '../anomaly';
import type { Executor } from '../db/client';
import { planFigures } from '../rollups/figures';
import type { ReadOptions } from './read-options';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export interface StepAnomaly {
  recentShare: number;
  baseline: number;
  threshold: number;
}

/**
 * Steps whose retry share of spend in the 24 hours before `now` is well above
 * their own previous 7 days (rule in lib/anomaly.ts), keyed `agent/step`.
 * The 7 baseline days are whole-hour aligned 24-hour spans just before the
 * last 24 hours.
 */
export async function getStepAnomalies(
  db: Executor,
  now: Date,
  options: ReadOptions = {},
): Promise<Map<string, StepAnomaly>> {
  const recentFrom = new Date(now.getTime() - DAY_MS);
  // The baseline days end on the whole hour at or before the recent window
  // starts, so they are read from rollups alone; the gap is under an hour.
  const baselineEnd = Math.floor(recentFrom.getTime() / HOUR_MS) * HOUR_MS;
  // 'recent' for the last 24 hours, '0'..'6' for each baseline day before them.
  const windows = [
    { label: 'recent', from: recentFrom, to: now },
    ...Array.from({ length: 7 }, (_, day) => ({
      label: String(day),
      from: new Date(baselineEnd - (day + 1) * DAY_MS),
      to: new Date(baselineEnd - day * DAY_MS),
    })),
  ];
  const plan = await planFigures(db, { windows, rawOnly: options.rawOnly });
  const rows = (
    await db.execute<{
      agent: string;
      step: string;
      label: string;
      attempts: string;
      spend: string;
      retry_spend: string;
    }>(sql`
      select agent, step, label, sum(attempts) as attempts, sum(cost_micros) as spend, sum(retry_cost_micros) as retry_spend
      from ${plan.figures} as figures
      group by agent, step, label`)
  ).map((row) => ({
    agent: row.agent,
    step: row.step,
    day: row.label === 'recent' ? -1 : Number(row.label),
    attempts: Number(row.attempts),
    spend: Number(row.spend),
    retrySpend: Number(row.retry_spend),
  }));

  const byStep = new Map<string, { recent?: { attempts: number; share: number }; baseline: number[] }>();
  for (const row of rows) {
    const key = `${row.agent}/${row.step}`;
    const entry = byStep.get(key) ?? { baseline: [] };
    const share = row.spend === 0 ? 0 : row.retrySpend / row.spend;
    if (Number(row.day) === -1) entry.recent = { attempts: row.attempts, share };
    else if (row.attempts > 0) entry.baseline.push(share);
    byStep.set(key, entry);
  }

  const anomalies = new Map<string, StepAnomaly>();
  for (const [key, entry] of byStep) {
    if (!entry.recent) continue;
    const verdict: AnomalyVerdict = judgeAnomaly({
      recentShare: entry.recent.share,
      recentAttempts: entry.recent.attempts,
      baselineShares: entry.baseline,
    });
    if (verdict.anomalous)
      anomalies.set(key, { recentShare: entry.recent.share, baseline: verdict.baseline, threshold: verdict.threshold });
  }
  return anomalies;
}
