import { type SQL, sql } from 'drizzle-orm';
import type { Transaction } from '../db/client';

/**
 * The error groups of an hour range, rewritten whole from the raw log's failed
 * attempts (by their start, as the attempt rollups count them), and the groups
 * met added to the catalogue (error_groups) or their first and last sightings
 * widened. Run by the rollup pass for every range it rolls, so a late failure
 * or a re-rolled hour is counted as the attempt rollups count it.
 */
export async function rollErrorGroupHours(tx: Transaction, start: SQL, end: SQL): Promise<void> {
  await tx.execute(sql`delete from error_group_hours where hour >= ${start} and hour < ${end}`);
  await tx.execute(sql`
    with grouped as (
      select date_trunc('hour', started_at, 'UTC') as hour, agent, step, error_class,
        holdfast_error_pattern(error_text) as pattern,
        count(*)::int as failures, count(distinct task_id)::int as tasks,
        min(coalesce(finished_at, started_at)) as first_failed_at, max(coalesce(finished_at, started_at)) as last_failed_at,
        max(left(error_text, 2000)) as sample_error
      from attempts
      where outcome = 'failed' and started_at >= ${start} and started_at < ${end}
      group by 1, 2, 3, 4, 5
    ),
    fingerprinted as (
      select grouped.*, holdfast_error_group_key(agent, step, error_class, pattern) as fingerprint from grouped
    ),
    catalogued as (
      insert into error_groups (fingerprint, agent, step, error_class, pattern, sample_error, first_seen_at, last_seen_at)
      select fingerprint, min(agent), min(step), min(error_class::text)::error_class, min(pattern), max(sample_error),
        min(first_failed_at), max(last_failed_at)
      from fingerprinted
      group by fingerprint
      on conflict (fingerprint) do update set
        first_seen_at = least(error_groups.first_seen_at, excluded.first_seen_at),
        last_seen_at = greatest(error_groups.last_seen_at, excluded.last_seen_at),
        sample_error = coalesce(error_groups.sample_error, excluded.sample_error)
    )
    insert into error_group_hours (hour, fingerprint, failures, tasks, first_failed_at, last_failed_at)
    select hour, fingerprint, sum(failures)::int, sum(tasks)::int, min(first_failed_at), max(last_failed_at)
    from fingerprinted
    group by hour, fingerprint`);
}

/** The days' rows rewritten as the sums of their hours' rows (the pass calls it for every day it touched). */
export async function rollErrorGroupDays(tx: Transaction, days: SQL): Promise<void> {
  await tx.execute(sql`delete from error_group_days where day = any(${days})`);
  await tx.execute(sql`
    insert into error_group_days (day, fingerprint, failures, tasks, first_failed_at, last_failed_at)
    select date_trunc('day', hour, 'UTC'), fingerprint, sum(failures), sum(tasks), min(first_failed_at), max(last_failed_at)
    from error_group_hours
    where date_trunc('day', hour, 'UTC') = any(${days})
    group by 1, 2`);
}

/** Drops error-group hours and days before the cutoff, and the groups last seen before it. */
export async function deleteErrorGroupsBefore(tx: Transaction, cutoff: Date): Promise<number> {
  const at = sql`${cutoff.toISOString()}::timestamptz`;
  const hours = await tx.execute(sql`delete from error_group_hours where hour < ${at}`);
  await tx.execute(sql`delete from error_group_days where day < ${at}`);
  await tx.execute(sql`delete from error_groups where last_seen_at < ${at}`);
  return hours.count;
}
