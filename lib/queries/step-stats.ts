import 'server-only';
import { and, asc, desc, gte, lt, sql } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { attempts } from '../db/schema';
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
}

const isRetry = sql`${attempts.attemptNumber} > 1`;

/**
 * Per (agent, step) figures for attempts started in [from, to), most retry
 * spend first.
 */
export async function getStepStats(db: Executor, range: TimeRange): Promise<StepStats[]> {
  const retrySpend = sql`coalesce(sum(${attempts.costMicros}) filter (where ${isRetry}), 0)`;
  const rows = await db
    .select({
      agent: attempts.agent,
      step: attempts.step,
      attempts: sql<number>`count(*)`.mapWith(Number),
      retries: sql<number>`count(*) filter (where ${isRetry})`.mapWith(Number),
      failures: sql<number>`count(*) filter (where ${attempts.outcome} = 'failed')`.mapWith(Number),
      totalSpendMicros: sql<number>`coalesce(sum(${attempts.costMicros}), 0)`.mapWith(Number),
      retrySpendMicros: sql<number>`${retrySpend}`.mapWith(Number),
    })
    .from(attempts)
    .where(and(gte(attempts.startedAt, range.from), lt(attempts.startedAt, range.to)))
    .groupBy(attempts.agent, attempts.step)
    .orderBy(desc(retrySpend), desc(sql`count(*)`), asc(attempts.agent), asc(attempts.step));

  return rows.map((row) => ({ ...row, retryRate: row.attempts === 0 ? 0 : row.retries / row.attempts }));
}

/** What the Overview shows and polls: the stats of one named window, with its bounds. */
export interface StepStatsView {
  window: TimeWindowName;
  from: string;
  to: string;
  steps: StepStats[];
}

export async function getStepStatsView(db: Executor, window: TimeWindowName, now: Date): Promise<StepStatsView> {
  const range = resolveTimeWindow(window, now);
  const steps = await getStepStats(db, range);
  return { window, from: range.from.toISOString(), to: range.to.toISOString(), steps };
}
