import { type SQL, sql } from 'drizzle-orm';
import type { Transaction } from '../db/client';

/**
 * The most error groups one agent's step keeps in the catalogue: far more causes than a person reads, far fewer
 * than a step whose messages vary in a way the pattern does not take out (an agent that put a word of its input in
 * every error made 20,000 groups from 20,000 failures). Past it, failures are counted in the step's "other" group.
 */
export const MAX_ERROR_GROUPS_PER_STEP = 200;

/**
 * The "other" group's pattern. No pattern of a real failure can equal it: holdfast_error_pattern replaces every
 * digit, and this holds one. Its error class is null (its failures are of any class).
 */
export const OTHER_ERRORS_PATTERN = `other errors (the patterns past this step's first ${MAX_ERROR_GROUPS_PER_STEP})`;

/**
 * The error groups of an hour range, rewritten whole from the raw log's failed
 * attempts (by their start, as the attempt rollups count them), and the groups
 * met added to the catalogue (error_groups) or their first and last sightings
 * widened. Run by the rollup pass for every range it rolls, so a late failure
 * or a re-rolled hour is counted as the attempt rollups count it.
 *
 * Capped per agent and step: a group already catalogued keeps its own rows; a new one takes one of the step's
 * free places (MAX_ERROR_GROUPS_PER_STEP, less the groups it has), the most failing of the range first, ties by
 * pattern; the rest are counted in the step's "other" group (OTHER_ERRORS_PATTERN), failures and distinct tasks
 * alike, so nothing is dropped and the step's figures add up. A re-rolled hour gives the same rows: what it met is
 * catalogued by then. The pass holds rollup_state's row, so two passes never share out the same places.
 */
export async function rollErrorGroupHours(tx: Transaction, start: SQL, end: SQL): Promise<void> {
  await tx.execute(sql`delete from error_group_hours where hour >= ${start} and hour < ${end}`);
  await tx.execute(sql`
    with raw as materialized (
      select date_trunc('hour', started_at, 'UTC') as hour, agent, step, error_class,
        holdfast_error_pattern(error_text) as pattern, task_id, coalesce(finished_at, started_at) as failed_at,
        left(error_text, 2000) as sample_error
      from attempts
      where outcome = 'failed' and started_at >= ${start} and started_at < ${end}
    ),
    met as (
      select agent, step, error_class, pattern, count(*) as failures,
        holdfast_error_group_key(agent, step, error_class, pattern) as fingerprint
      from raw
      group by agent, step, error_class, pattern
    ),
    ranked as (
      select met.*, known.fingerprint is not null as catalogued,
        row_number() over (partition by met.agent, met.step, known.fingerprint is null
          order by met.failures desc, met.pattern, met.error_class) as place
      from met left join error_groups known on known.fingerprint = met.fingerprint
    ),
    held as (
      select agent, step, count(*) as groups
      from error_groups
      where (agent, step) in (select agent, step from met) and pattern <> ${OTHER_ERRORS_PATTERN}
      group by agent, step
    ),
    assigned as (
      select r.agent, r.step, r.error_class, r.pattern,
        r.catalogued or r.place <= ${MAX_ERROR_GROUPS_PER_STEP} - coalesce(h.groups, 0) as own
      from ranked r left join held h on h.agent = r.agent and h.step = r.step
    ),
    grouped as (
      select raw.hour, raw.agent, raw.step,
        case when a.own then raw.error_class end as error_class,
        case when a.own then raw.pattern else ${OTHER_ERRORS_PATTERN} end as pattern,
        count(*)::int as failures, count(distinct raw.task_id)::int as tasks,
        min(raw.failed_at) as first_failed_at, max(raw.failed_at) as last_failed_at, max(raw.sample_error) as sample_error
      from raw join assigned a on a.agent = raw.agent and a.step = raw.step
        and coalesce(a.error_class::text, '') = coalesce(raw.error_class::text, '')
        and coalesce(a.pattern, '') = coalesce(raw.pattern, '')
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
