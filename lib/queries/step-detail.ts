import 'server-only';
import { and, desc, eq, gte, lt, sql } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { attempts, errorClasses, type ErrorClass } from '../db/schema';
import type { TimeRange } from '../time-window';

export interface StepTrendPoint {
  /** Start of the bucket, ISO. */
  bucket: string;
  attempts: number;
  retries: number;
  retryRate: number;
  retrySpendMicros: number;
  failuresByClass: Partial<Record<ErrorClass, number>>;
}

/** Hourly buckets up to two days, daily beyond: enough points to read a trend, few enough to draw. */
export function bucketFor(range: TimeRange): 'hour' | 'day' {
  return range.to.getTime() - range.from.getTime() <= 2 * 24 * 3_600_000 ? 'hour' : 'day';
}

/** One step's figures per bucket over the window, and its latest failures. */
export async function getStepDetail(db: Executor, params: TimeRange & { agent: string; step: string }) {
  const unit = bucketFor(params);
  // An ISO string in UTC, so the bucket reads the same on the server and in the browser.
  // The unit is written into the SQL (it is one of two constants), so GROUP BY and SELECT match.
  const bucket = sql<string>`to_char(date_trunc('${sql.raw(unit)}', ${attempts.startedAt} at time zone 'UTC'), 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;
  const where = and(eq(attempts.agent, params.agent), eq(attempts.step, params.step), gte(attempts.startedAt, params.from), lt(attempts.startedAt, params.to));

  const rows = await db
    .select({
      bucket,
      errorClass: attempts.errorClass,
      attempts: sql<number>`count(*)`.mapWith(Number),
      retries: sql<number>`count(*) filter (where ${attempts.attemptNumber} > 1)`.mapWith(Number),
      retrySpendMicros: sql<number>`coalesce(sum(${attempts.costMicros}) filter (where ${attempts.attemptNumber} > 1), 0)`.mapWith(Number),
      failures: sql<number>`count(*) filter (where ${attempts.outcome} = 'failed')`.mapWith(Number),
    })
    .from(attempts)
    .where(where)
    .groupBy(bucket, attempts.errorClass)
    .orderBy(bucket);

  const points = new Map<string, StepTrendPoint>();
  for (const row of rows) {
    const key = row.bucket;
    const point = points.get(key) ?? { bucket: key, attempts: 0, retries: 0, retryRate: 0, retrySpendMicros: 0, failuresByClass: {} };
    point.attempts += row.attempts;
    point.retries += row.retries;
    point.retrySpendMicros += row.retrySpendMicros;
    if (row.errorClass && row.failures > 0) point.failuresByClass[row.errorClass] = (point.failuresByClass[row.errorClass] ?? 0) + row.failures;
    point.retryRate = point.attempts === 0 ? 0 : point.retries / point.attempts;
    points.set(key, point);
  }

  const recentFailures = await db
    .select({
      taskId: attempts.taskId,
      attemptNumber: attempts.attemptNumber,
      startedAt: attempts.startedAt,
      errorClass: attempts.errorClass,
      errorText: attempts.errorText,
    })
    .from(attempts)
    .where(and(where, eq(attempts.outcome, 'failed')))
    .orderBy(desc(attempts.startedAt))
    .limit(20);

  const classesSeen = errorClasses.filter((errorClass) => [...points.values()].some((point) => point.failuresByClass[errorClass]));
  return { unit, points: [...points.values()], classesSeen, recentFailures };
}
