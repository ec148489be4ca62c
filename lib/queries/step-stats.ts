import 'server-only';
import { and, asc, desc, eq, gte, lt, sql } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { attempts, type ErrorClass } from '../db/schema';
import { getStepAnomalies, type StepAnomaly } from './anomalies';
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

const isRetry = sql`${attempts.attemptNumber} > 1`;

/**
 * Per (agent, step) figures for attempts started in [from, to), most retry
 * spend first.
 */
export async function getStepStats(db: Executor, range: TimeRange & { agent?: string }): Promise<StepStats[]> {
  const retrySpend = sql`coalesce(sum(${attempts.costMicros}) filter (where ${isRetry}), 0)`;
  const inRange = and(
    gte(attempts.startedAt, range.from),
    lt(attempts.startedAt, range.to),
    range.agent ? eq(attempts.agent, range.agent) : undefined,
  );
  const rows = await db
    .select({
      agent: attempts.agent,
      step: attempts.step,
      attempts: sql<number>`count(*)`.mapWith(Number),
      retries: sql<number>`count(*) filter (where ${isRetry})`.mapWith(Number),
      failures: sql<number>`count(*) filter (where ${attempts.outcome} = 'failed')`.mapWith(Number),
      totalSpendMicros: sql<number>`coalesce(sum(${attempts.costMicros}), 0)`.mapWith(Number),
      retrySpendMicros: sql<number>`${retrySpend}`.mapWith(Number),
      executions: sql<number>`count(*) filter (where ${attempts.attemptNumber} = 1)`.mapWith(Number),
      firstTrySuccesses: sql<number>`count(*) filter (where ${attempts.attemptNumber} = 1 and ${attempts.outcome} = 'succeeded')`.mapWith(Number),
      latencyP50Ms: sql<number | null>`percentile_cont(0.5) within group (order by ${attempts.latencyMs})`,
      latencyP95Ms: sql<number | null>`percentile_cont(0.95) within group (order by ${attempts.latencyMs})`,
    })
    .from(attempts)
    .where(inRange)
    .groupBy(attempts.agent, attempts.step)
    .orderBy(desc(retrySpend), desc(sql`count(*)`), asc(attempts.agent), asc(attempts.step));

  const failureRows = await db
    .select({ agent: attempts.agent, step: attempts.step, errorClass: attempts.errorClass, count: sql<number>`count(*)`.mapWith(Number) })
    .from(attempts)
    .where(and(inRange, eq(attempts.outcome, 'failed')))
    .groupBy(attempts.agent, attempts.step, attempts.errorClass);
  const failuresByStep = new Map<string, Partial<Record<ErrorClass, number>>>();
  for (const failure of failureRows) {
    if (!failure.errorClass) continue;
    const key = `${failure.agent}/${failure.step}`;
    failuresByStep.set(key, { ...failuresByStep.get(key), [failure.errorClass]: failure.count });
  }

  return rows.map(({ executions, firstTrySuccesses, latencyP50Ms, latencyP95Ms, ...row }) => ({
    ...row,
    retryRate: row.attempts === 0 ? 0 : row.retries / row.attempts,
    retryShareOfSpend: row.totalSpendMicros === 0 ? 0 : row.retrySpendMicros / row.totalSpendMicros,
    firstTrySuccess: executions === 0 ? null : firstTrySuccesses / executions,
    latencyP50Ms: latencyP50Ms === null ? null : Number(latencyP50Ms),
    latencyP95Ms: latencyP95Ms === null ? null : Number(latencyP95Ms),
    failuresByClass: failuresByStep.get(`${row.agent}/${row.step}`) ?? {},
  }));
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

export async function getStepStatsView(db: Executor, window: TimeWindowName, now: Date): Promise<StepStatsView> {
  const range = resolveTimeWindow(window, now);
  const [steps, anomalies] = await Promise.all([getStepStats(db, range), getStepAnomalies(db, now)]);
  return { window, from: range.from.toISOString(), to: range.to.toISOString(), steps, anomalies: Object.fromEntries(anomalies) };
}
