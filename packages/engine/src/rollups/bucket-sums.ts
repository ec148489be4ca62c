import { type SQL, sql } from 'drizzle-orm';
import type { Transaction } from '../db/client';
import { FLEET_FIGURES } from '../db/schema/figures';
import { figureList, rawFigures, summedFigures } from './figure-sql';
import { latencyBucketSql } from './latency-buckets';

/** The finest rollup bucket: five minutes, so a read scans at most that much raw log at a window's edge. */
export const FINE_BUCKET_MS = 5 * 60_000;

/** Each coarser grain is summed from the next finer one. */
const FINER: Record<'hour' | 'day', '5min' | 'hour'> = { hour: '5min', day: 'hour' };

/**
 * Replaces the five-minute rows of [start, end) (figures, latency histograms
 * and the fleet's sums) with sums recomputed from the raw log. The only
 * rollup write that scans the log: hourly rows are summed from these.
 */
export async function writeFineBuckets(tx: Transaction, start: SQL, end: SQL): Promise<void> {
  const inRange = sql`grain = '5min' and bucket_start >= ${start} and bucket_start < ${end}`;
  const fineBucket = sql`date_bin('5 minutes', started_at, timestamptz '2000-01-01 00:00:00+00')`;
  await tx.execute(sql`delete from attempt_rollups where ${inRange}`);
  await tx.execute(sql`delete from attempt_latency_rollups where ${inRange}`);
  await tx.execute(sql`
    insert into attempt_rollups (grain, bucket_start, agent, step, error_class, ${figureList()})
    select '5min', ${fineBucket}, agent, step, error_class, ${rawFigures()}
    from attempts
    where started_at >= ${start} and started_at < ${end}
    group by 2, 3, 4, 5`);
  await tx.execute(sql`
    insert into attempt_latency_rollups (grain, bucket_start, agent, step, buckets, counts)
    select '5min', bucket, agent, step, array_agg(latency_bucket order by latency_bucket), array_agg(attempts order by latency_bucket)
    from (
      select ${fineBucket} as bucket, agent, step, ${sql.raw(latencyBucketSql('latency_ms'))} as latency_bucket, count(*) as attempts
      from attempts
      where started_at >= ${start} and started_at < ${end} and latency_ms is not null
      group by 1, 2, 3, 4
    ) as per_bucket
    group by 1, 2, 3, 4`);
  await sumAllSteps(tx, '5min', sql`bucket_start >= ${start} and bucket_start < ${end}`);
}

/**
 * Inserts a grain's rows for the given buckets as the sums of the next finer
 * grain's rows there (figures and latency histograms; the fleet's sums are
 * left to sumAllSteps). The caller has deleted the rows being replaced.
 */
export async function insertSumsOfFinerRows(tx: Transaction, grain: 'hour' | 'day', inBuckets: SQL): Promise<void> {
  const finer = FINER[grain];
  const unit = sql.raw(`'${grain}'`);
  await tx.execute(sql`
    insert into attempt_rollups (grain, bucket_start, agent, step, error_class, ${figureList()})
    select ${grain}, date_trunc(${unit}, bucket_start, 'UTC'), agent, step, error_class, ${summedFigures()}
    from attempt_rollups
    where grain = ${finer} and ${inBuckets}
    group by 2, 3, 4, 5`);
  await tx.execute(sql`
    insert into attempt_latency_rollups (grain, bucket_start, agent, step, buckets, counts)
    select ${grain}, bucket, agent, step, array_agg(latency_bucket order by latency_bucket), array_agg(attempts order by latency_bucket)
    from (
      select date_trunc(${unit}, bucket_start, 'UTC') as bucket, agent, step, entry.latency_bucket, sum(entry.attempts)::bigint as attempts
      from attempt_latency_rollups, unnest(buckets, counts) as entry(latency_bucket, attempts)
      where grain = ${finer} and ${inBuckets}
      group by 1, 2, 3, 4
    ) as per_bucket
    group by 1, 2, 3, 4`);
}

/** Replaces the fleet's sums of the given buckets with the sums of their per-step rows (just written). */
export async function sumAllSteps(tx: Transaction, grain: '5min' | 'hour' | 'day', inBuckets: SQL): Promise<void> {
  await tx.execute(sql`delete from all_steps_rollups where grain = ${grain} and ${inBuckets}`);
  await tx.execute(sql`
    insert into all_steps_rollups (grain, bucket_start, ${figureList(FLEET_FIGURES)})
    select grain, bucket_start, ${summedFigures(FLEET_FIGURES)}
    from attempt_rollups
    where grain = ${grain} and ${inBuckets}
    group by grain, bucket_start`);
}
