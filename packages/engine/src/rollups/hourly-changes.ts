import { type SQL, sql } from 'drizzle-orm';
import type { Transaction } from '../db/client';
import { figureColumnTypes, signedFigures } from './figure-sql';

/**
 * What one rollup pass changed in the hourly rollups, row by row: each
 * replaced row with its sums negated, each new row as it is. Summed over a
 * span's hours, they turn the span as it was stored before the pass into the
 * span as the rollups now hold it, which lets the pass move the stored spans
 * (packages/engine/src/rollups/spans.ts) instead of summing them afresh.
 *
 * Temporary tables, dropped when the pass's transaction ends: nothing else
 * reads them, and they hold at most the hours this pass rolled.
 */
export const HOURLY_CHANGES = sql.raw('pass_hourly_changes');
export const HOURLY_LATENCY_CHANGES = sql.raw('pass_hourly_latency_changes');

export async function startNotingHourlyChanges(tx: Transaction): Promise<void> {
  await tx.execute(sql`
    create temporary table ${HOURLY_CHANGES} (bucket_start timestamptz, agent text, step text, error_class error_class,
      ${figureColumnTypes()}) on commit drop`);
  await tx.execute(sql`
    create temporary table ${HOURLY_LATENCY_CHANGES} (bucket_start timestamptz, agent text, step text,
      latency_bucket smallint, attempts bigint) on commit drop`);
}

/**
 * Notes the hourly rows of [start, end) as they stand now, negated (before
 * they are replaced) or as they are (once written).
 */
export async function noteHourlyRows(tx: Transaction, start: SQL, end: SQL, sign: 1 | -1): Promise<void> {
  const inRange = sql`grain = 'hour' and bucket_start >= ${start} and bucket_start < ${end}`;
  await tx.execute(sql`
    insert into ${HOURLY_CHANGES}
    select bucket_start, agent, step, error_class, ${signedFigures(sign)}
    from attempt_rollups where ${inRange}`);
  await tx.execute(sql`
    insert into ${HOURLY_LATENCY_CHANGES}
    select bucket_start, agent, step, entry.latency_bucket, ${sign === 1 ? sql`` : sql`-`}entry.attempts
    from attempt_latency_rollups, unnest(buckets, counts) as entry(latency_bucket, attempts)
    where ${inRange}`);
}
