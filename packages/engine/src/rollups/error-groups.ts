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
    with grouped as (
      select by_hour.*, holdfast_error_group_key(agent, step, error_class, pattern) as fingerprint
      from (
        select date_trunc('hour', started_at, 'UTC') as hour, agent, step, error_class,
          holdfast_error_pattern(error_text) as pattern,
          count(*)::int as failures, count(distinct task_id)::int as tasks,
          min(coalesce(finished_at, started_at)) as first_failed_at, max(coalesce(finished_at, started_at)) as last_failed_at,
          max(left(error_text, 2000)) as sample_error
        from attempts
        where outcome = 'failed' and started_at >= ${start} and started_at < ${end}
        group by 1, 2, 3, 4, 5
      ) as by_hour
    ),
    looked_up as (
      -- Each group's failures over the whole range, and whether the catalogue has it.
      select grouped.*, known.fingerprint is not null as catalogued,
        sum(grouped.failures) over (partition by grouped.fingerprint) as range_failures
      from grouped left join error_groups known on known.fingerprint = grouped.fingerprint
    ),
    ranked as (
      -- A new group's place among the step's new ones (its rows, one per hour, share it).
      select looked_up.*, dense_rank() over (partition by agent, step, catalogued
        order by range_failures desc, pattern, error_class) as place
      from looked_up
    ),
    held as (
      select agent, step, count(*) as groups
      from error_groups
      where (agent, step) in (select agent, step from grouped) and pattern <> ${OTHER_ERRORS_PATTERN}
      group by agent, step
    ),
    assigned as (
      select r.*, r.catalogued or r.place <= ${MAX_ERROR_GROUPS_PER_STEP} - coalesce(h.groups, 0) as own
      from ranked r left join held h on h.agent = r.agent and h.step = r.step
    ),
    folded_tasks as (
      -- The other group's distinct tasks per hour, from the raw log again: only steps past the cap pay for it.
      select date_trunc('hour', started_at, 'UTC') as hour, agent, step, count(distinct task_id)::int as tasks
      from attempts
      where outcome = 'failed' and started_at >= ${start} and started_at < ${end}
        and (agent, step) in (select agent, step from assigned where not own)
        and holdfast_error_fingerprint(agent, step, error_class, error_text) in
          (select fingerprint from assigned where not own)
      group by 1, 2, 3
    ),
    folded as (
      select hour, agent, step, case when own then error_class end as error_class,
        case when own then pattern else ${OTHER_ERRORS_PATTERN} end as pattern,
        sum(failures)::int as failures, case when own then sum(tasks)::int end as tasks,
        min(first_failed_at) as first_failed_at, max(last_failed_at) as last_failed_at, max(sample_error) as sample_error
      from assigned
      group by 1, 2, 3, 4, 5, own
    ),
    fingerprinted as (
      select f.hour, f.agent, f.step, f.error_class, f.pattern, f.failures, coalesce(f.tasks, t.tasks) as tasks,
        f.first_failed_at, f.last_failed_at, f.sample_error,
        holdfast_error_group_key(f.agent, f.step, f.error_class, f.pattern) as fingerprint
      from folded f left join folded_tasks t on f.tasks is null and t.hour = f.hour and t.agent = f.agent and t.step = f.step
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
