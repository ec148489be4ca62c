import { sql } from 'drizzle-orm';
import type { Executor, Transaction } from '../db/client';

const HOUR_MS = 3_600_000;

/** A range of whole hours, [start, end) in epoch milliseconds. */
export type HourRange = [number, number];

/**
 * The hours whose executions changed since the last pass: for every execution
 * with an attempt written or finished by a transaction in [since, horizon),
 * the hour its first attempt started (attempt 1; an execution whose first
 * attempt is not in the log is left out, as the simulator leaves it out).
 * Hours before the retention floor are not rewritten: their raw rows may be gone.
 */
export async function hoursOfChangedExecutions(
  tx: Transaction,
  window: { since: string; horizon: string; floor: number },
): Promise<number[]> {
  const rows = await tx.execute<{ hour: Date }>(sql`
    with changed as (
      select agent, step, task_id, iteration,
        min(started_at) filter (where attempt_number = 1) as begun_at, max(started_at) as latest
      from attempts
      where changed_xid >= ${window.since}::xid8 and changed_xid < ${window.horizon}::xid8
      group by agent, step, task_id, iteration
    ),
    begun as (
      select coalesce(begun_at, (
        -- A retry whose first attempt came in an earlier pass: find that attempt by the primary key.
        select first.started_at from attempts first
        where first.task_id = changed.task_id and first.step = changed.step and first.iteration = changed.iteration
          and first.attempt_number = 1 and first.agent = changed.agent and first.started_at <= changed.latest
        limit 1)) as begun_at
      from changed
    )
    select distinct date_trunc('hour', begun_at, 'UTC') as hour from begun
    where begun_at >= ${new Date(window.floor).toISOString()}::timestamptz`);
  return rows.map((row) => new Date(row.hour).getTime());
}

/**
 * Rewrites execution_shape_hours for a range of hours from the raw log: the
 * executions whose attempt 1 started in the range, each with every attempt of
 * it started from then on, summed per (hour, step, shape, attempt number).
 * Idempotent, like every rollup rewrite.
 */
export async function rollExecutionShapes(tx: Transaction, [from, to]: HourRange): Promise<void> {
  const start = sql`${new Date(from).toISOString()}::timestamptz`;
  const end = sql`${new Date(to).toISOString()}::timestamptz`;
  await tx.execute(sql`delete from execution_shape_hours where hour >= ${start} and hour < ${end}`);
  await tx.execute(sql`
    insert into execution_shape_hours (hour, agent, step, shape, attempt_number, executions, cost_micros, retry_cost_micros,
      to_end_ms)
    with begun as (
      select agent, step, task_id, iteration, started_at as begun_at from attempts
      where attempt_number = 1 and started_at >= ${start} and started_at < ${end}
    ),
    tries as (
      select begun.agent, begun.step, begun.task_id, begun.iteration, date_trunc('hour', begun.begun_at, 'UTC') as hour,
        later.attempt_number, later.cost_micros, later.retry_cost_micros, later.finished_at,
        later.attempt_number || ':' || case later.outcome when 'succeeded' then 'ok' when 'running' then 'running'
          else later.error_class::text end as token
      from begun join attempts later
        on later.task_id = begun.task_id and later.step = begun.step and later.iteration = begun.iteration
          and later.agent = begun.agent and later.started_at >= begun.begun_at
      -- The same bound as a constant, so the planner leaves out the partitions before the range.
      where later.started_at >= ${start}
    ),
    shaped as (
      select tries.*, string_agg(token, ' ') over execution as shape, max(finished_at) over execution as ended_at
      from tries
      window execution as (partition by agent, step, task_id, iteration order by attempt_number
        rows between unbounded preceding and unbounded following)
    )
    select hour, agent, step, shape, attempt_number, count(*)::int, sum(cost_micros), sum(retry_cost_micros),
      coalesce(sum(greatest(0, extract(epoch from ended_at - finished_at) * 1000)), 0)
    from shaped
    group by hour, agent, step, shape, attempt_number`);
}

/** Hours (epoch milliseconds) as ranges, adjacent ones merged so a run of hours is one statement. */
export function mergeHours(hours: number[]): HourRange[] {
  const ranges: HourRange[] = [];
  for (const hour of [...new Set(hours)].sort((a, b) => a - b)) {
    const last = ranges.at(-1);
    if (last && last[1] === hour) last[1] = hour + HOUR_MS;
    else ranges.push([hour, hour + HOUR_MS]);
  }
  return ranges;
}

/** Drops shape hours before the raw log's floor: the simulator refuses windows reaching past it. */
export async function deleteExecutionShapesBefore(db: Executor, rawFloor: Date): Promise<number> {
  const deleted = await db.execute(
    sql`delete from execution_shape_hours where hour < ${rawFloor.toISOString()}::timestamptz`,
  );
  return deleted.count;
}
