import { sql } from 'drizzle-orm';
import { judgeAnomaly } from '../anomaly';
import type { Executor } from '../db/client';
import { planFigures } from '../rollups/figures';

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
 * The steps the console's anomalies read model (lib/queries/anomalies.ts,
 * getStepAnomalies) calls anomalous, read the same way: the same windows (the
 * last 24 hours against 7 whole-hour-aligned days before them), the same
 * figures and the same rule (lib/anomaly.ts). It is repeated here because the
 * read model is marked server-only for Next, and the sweeper runs in plain
 * Node where that marker throws on import; tests/integration/alerts-evaluation
 * checks that both agree. Once the read model's body moves to a module without
 * the marker, this file should import it instead.
 */
export async function readStepAnomalies(db: Executor, now: Date): Promise<StepAnomalyReading[]> {
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
  const plan = await planFigures(db, { windows });
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
