import 'server-only';
import { and, gte, lt, sql } from 'drizzle-orm';
import { judgeAnomaly, type AnomalyVerdict } from '../anomaly';
import type { Executor } from '../db/client';
import { attempts } from '../db/schema';

const DAY_MS = 24 * 3_600_000;

export interface StepAnomaly {
  recentShare: number;
  baseline: number;
  threshold: number;
}

/**
 * Steps whose retry share of spend in the 24 hours before `now` is well above
 * their own previous 7 days (rule in lib/anomaly.ts), keyed `agent/step`.
 */
export async function getStepAnomalies(db: Executor, now: Date): Promise<Map<string, StepAnomaly>> {
  const recentFrom = new Date(now.getTime() - DAY_MS);
  // -1 for the last 24 hours, 0..6 for each baseline day before them.
  const day = sql<number>`case when ${attempts.startedAt} >= ${recentFrom.toISOString()}::timestamptz then -1
    else floor(extract(epoch from (${recentFrom.toISOString()}::timestamptz - ${attempts.startedAt})) / 86400)::int end`;
  const rows = await db
    .select({
      agent: attempts.agent,
      step: attempts.step,
      day,
      attempts: sql<number>`count(*)`.mapWith(Number),
      spend: sql<number>`coalesce(sum(${attempts.costMicros}), 0)`.mapWith(Number),
      retrySpend: sql<number>`coalesce(sum(${attempts.costMicros}) filter (where ${attempts.attemptNumber} > 1), 0)`.mapWith(Number),
    })
    .from(attempts)
    .where(and(gte(attempts.startedAt, new Date(now.getTime() - 8 * DAY_MS)), lt(attempts.startedAt, now)))
    .groupBy(sql`1, 2, 3`);

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
    const verdict: AnomalyVerdict = judgeAnomaly({ recentShare: entry.recent.share, recentAttempts: entry.recent.attempts, baselineShares: entry.baseline });
    if (verdict.anomalous) anomalies.set(key, { recentShare: entry.recent.share, baseline: verdict.baseline, threshold: verdict.threshold });
  }
  return anomalies;
}
