import 'server-only';
import { and, desc, eq, gte, lt, sql } from 'drizzle-orm';
import type { Executor } from '@holdfast/engine/db';
import { attempts, errorClasses, type ErrorClass } from '@holdfast/engine/db/schema';
import { bucketLabelSql, finestBucketFor, planFigures } from '@holdfast/engine/rollups';
import { bucketFor, type TimeRange } from '@holdfast/protocol/time-window';
import type { ReadOptions } from './read-options';

export interface StepTrendPoint {
  /** Start of the bucket, ISO. */
  bucket: string;
  attempts: number;
  retries: number;
  retryRate: number;
  retrySpendMicros: number;
  failuresByClass: Partial<Record<ErrorClass, number>>;
}

/**
 * One step's figures per bucket over the window (bucketFor: minutes for short windows), and its latest
 * failures. Buckets without attempts are left out; charts draw them as zeros. `minuteFloor` is where the raw
 * log begins: a window reaching before it is drawn in hours, as its minutes are no longer kept.
 */
export async function getStepDetail(
  db: Executor,
  params: TimeRange & { agent: string; step: string; minuteFloor?: Date },
  options: ReadOptions = {},
) {
  const unit = bucketFor(params, params.minuteFloor, { minutes: true });
  const plan = await planFigures(db, {
    windows: [{ label: 'window', from: params.from, to: params.to }],
    agent: params.agent,
    step: params.step,
    finestBucket: finestBucketFor(unit),
    rawOnly: options.rawOnly,
  });
  const rows = (
    await db.execute<{
      bucket: string;
      error_class: ErrorClass | null;
      attempts: string;
      retries: string;
      /** The bucket's retry spend over every class: summed exactly in SQL (numeric), made a JS number once. */
      bucket_retry_spend: string;
      failures: string;
    }>(sql`
      select ${bucketLabelSql(unit, sql`bucket_time`)} as bucket, error_class, sum(attempts) as attempts, sum(retries) as retries,
        sum(sum(retry_cost_micros)) over (partition by ${bucketLabelSql(unit, sql`bucket_time`)}) as bucket_retry_spend, sum(failures) as failures
      from ${plan.figures} as figures
      group by 1, 2
      order by 1`)
  ).map((row) => ({
    bucket: row.bucket,
    errorClass: row.error_class,
    attempts: Number(row.attempts),
    retries: Number(row.retries),
    bucketRetrySpendMicros: Number(row.bucket_retry_spend),
    failures: Number(row.failures),
  }));
  const where = and(
    eq(attempts.agent, params.agent),
    eq(attempts.step, params.step),
    gte(attempts.startedAt, params.from),
    lt(attempts.startedAt, params.to),
  );

  const points = new Map<string, StepTrendPoint>();
  for (const row of rows) {
    const key = row.bucket;
    const point = points.get(key) ?? {
      bucket: key,
      attempts: 0,
      retries: 0,
      retryRate: 0,
      retrySpendMicros: 0,
      failuresByClass: {},
    };
    point.attempts += row.attempts;
    point.retries += row.retries;
    point.retrySpendMicros = row.bucketRetrySpendMicros;
    if (row.errorClass && row.failures > 0)
      point.failuresByClass[row.errorClass] = (point.failuresByClass[row.errorClass] ?? 0) + row.failures;
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
      costMicros: attempts.costMicros,
      costSource: attempts.costSource,
    })
    .from(attempts)
    .where(and(where, eq(attempts.outcome, 'failed')))
    .orderBy(desc(attempts.startedAt))
    .limit(20);

  const classesSeen = errorClasses.filter((errorClass) =>
    [...points.values()].some((point) => point.failuresByClass[errorClass]),
  );
  return { unit, points: [...points.values()], classesSeen, recentFailures };
}
