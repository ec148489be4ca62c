import 'server-only';
import { sql } from 'drizzle-orm';
import type { ErrorClass } from '@holdfast/engine/db/schema';
import type { Executor } from '@holdfast/engine/db';
import { resolveTimeWindow, type TimeWindowName } from '@holdfast/protocol/time-window';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Groups listed at most; the search and the step filter narrow a longer list. */
export const ERROR_GROUPS_SHOWN = 100;

export interface ErrorGroupRow {
  fingerprint: string;
  agent: string;
  step: string;
  errorClass: ErrorClass | null;
  pattern: string;
  sampleError: string | null;
  /** Failures in the window, and in the window of the same length before it. */
  failures: number;
  previousFailures: number;
  /** Distinct tasks per hour, summed over the window's hours: a task failing in two hours counts twice. */
  taskHours: number;
  firstSeenAt: Date;
  lastSeenAt: Date;
  /** Its dead letters waiting for a person. */
  pendingDeadLetters: number;
}

export interface ErrorGroupsView {
  window: TimeWindowName;
  /** The window, widened at its start to whole hours (1 h, 24 h) or whole UTC days (7 d, 30 d). */
  from: Date;
  to: Date;
  /** The hours the window spans (the last may be partial); `previousFailures` count as many hours before it. */
  windowHours: number;
  groups: ErrorGroupRow[];
  /** Groups that matched, of which `groups` are the most failing. */
  matched: number;
}

export interface ErrorGroupsFilter {
  agent?: string;
  step?: string;
  /** Words in the pattern or the sample error, any case. */
  search?: string;
}

/**
 * Failures grouped by cause over a window, most failures first. Closed hours
 * come from the rollup pass's error_group_hours; the minutes since its edge
 * are grouped from the raw log at read time, so a group born a minute ago is
 * already listed. One statement, so every figure comes from one snapshot.
 */
export async function getErrorGroups(
  db: Executor,
  options: { window: TimeWindowName; now: Date; filter?: ErrorGroupsFilter; limit?: number },
): Promise<ErrorGroupsView> {
  const range = resolveTimeWindow(options.window, options.now);
  // Counted in whole hours, or for the week and the month whole UTC days (a row per day, not 24).
  const useDays = options.window === '7d' || options.window === '30d';
  const unit = useDays ? DAY_MS : HOUR_MS;
  const from = new Date(Math.floor(range.from.getTime() / unit) * unit);
  const to = range.to;
  // As many whole units before it as the window spans (its last one may be partial).
  const windowUnits = Math.ceil((to.getTime() - from.getTime()) / unit);
  const windowHours = (windowUnits * unit) / HOUR_MS;
  const previousFrom = new Date(from.getTime() - windowUnits * unit);
  const filter = options.filter ?? {};
  const search = filter.search?.trim() ? `%${filter.search.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const at = (date: Date) => sql`${date.toISOString()}::timestamptz`;
  const rows = await db.execute<{
    fingerprint: string;
    agent: string;
    step: string;
    error_class: ErrorClass | null;
    pattern: string;
    sample_error: string | null;
    failures: number;
    previous_failures: number;
    task_hours: number;
    first_seen_at: Date;
    last_seen_at: Date;
    pending_dead_letters: number;
    matched: number;
  }>(sql`
    with edge as (
      select coalesce(rolled_to, '-infinity'::timestamptz) as rolled_to from rollup_state where id = 1
    ),
    rolled as (
      -- Whole days all of whose hours are rolled (long windows only), then the rolled hours after them.
      -- Each branch's bounds are plain ranges on its key, so each is an index range scan.
      select d.day as bucket, d.fingerprint, d.failures, d.tasks, d.last_failed_at
      from error_group_days d, edge
      where ${useDays} and d.day >= ${at(previousFrom)} and d.day < date_trunc('day', edge.rolled_to, 'UTC')
      union all
      select h.hour, h.fingerprint, h.failures, h.tasks, h.last_failed_at
      from error_group_hours h, edge
      where h.hour >= ${useDays ? sql`greatest(${at(previousFrom)}, date_trunc('day', edge.rolled_to, 'UTC'))` : at(previousFrom)}
        and h.hour < least(${at(to)}, edge.rolled_to)
    ),
    closed as (
      select fingerprint,
        sum(failures) filter (where bucket >= ${at(from)}) as failures,
        sum(failures) filter (where bucket < ${at(from)}) as previous_failures,
        sum(tasks) filter (where bucket >= ${at(from)}) as task_hours,
        max(last_failed_at) as last_failed_at
      from rolled
      group by fingerprint
    ),
    open_edge as (
      -- Failures since the pass's edge, grouped as the pass will group them.
      select holdfast_error_group_key(agent, step, error_class, pattern) as fingerprint, agent, step, error_class, pattern,
        count(*) filter (where started_at >= ${at(from)}) as failures,
        count(*) filter (where started_at < ${at(from)}) as previous_failures,
        count(distinct task_id) filter (where started_at >= ${at(from)}) as task_hours,
        min(coalesce(finished_at, started_at)) as first_failed_at, max(coalesce(finished_at, started_at)) as last_failed_at,
        max(left(error_text, 2000)) as sample_error
      from (
        select a.*, holdfast_error_pattern(a.error_text) as pattern
        from attempts a, edge
        where a.outcome = 'failed' and a.started_at >= greatest(${at(previousFrom)}, edge.rolled_to) and a.started_at < ${at(to)}
      ) as raw
      group by agent, step, error_class, pattern
    ),
    counted as (
      select coalesce(c.fingerprint, o.fingerprint) as fingerprint,
        coalesce(c.failures, 0) + coalesce(o.failures, 0) as failures,
        coalesce(c.previous_failures, 0) + coalesce(o.previous_failures, 0) as previous_failures,
        coalesce(c.task_hours, 0) + coalesce(o.task_hours, 0) as task_hours,
        o.agent, o.step, o.error_class, o.pattern, o.sample_error, o.first_failed_at,
        greatest(c.last_failed_at, o.last_failed_at) as last_failed_at
      from closed c full join open_edge o on o.fingerprint = c.fingerprint
    ),
    described as (
      select n.fingerprint, coalesce(g.agent, n.agent) as agent, coalesce(g.step, n.step) as step,
        coalesce(g.error_class, n.error_class) as error_class, coalesce(g.pattern, n.pattern) as pattern,
        coalesce(g.sample_error, n.sample_error) as sample_error,
        n.failures, n.previous_failures, n.task_hours,
        coalesce(least(g.first_seen_at, n.first_failed_at), g.first_seen_at, n.first_failed_at) as first_seen_at,
        coalesce(greatest(g.last_seen_at, n.last_failed_at), g.last_seen_at, n.last_failed_at) as last_seen_at
      from counted n left join error_groups g on g.fingerprint = n.fingerprint
      where n.failures > 0
    ),
    matching as (
      select * from described
      where (${filter.agent ?? null}::text is null or agent = ${filter.agent ?? null}::text)
        and (${filter.step ?? null}::text is null or step = ${filter.step ?? null}::text)
        and (${search}::text is null or pattern ilike ${search}::text or sample_error ilike ${search}::text)
    ),
    listed as (
      select *, count(*) over () as matched from matching
      order by failures desc, last_seen_at desc, fingerprint
      limit ${options.limit ?? ERROR_GROUPS_SHOWN}
    )
    select l.fingerprint, l.agent, l.step, l.error_class, l.pattern, l.sample_error,
      l.failures::int, l.previous_failures::int, l.task_hours::int, l.first_seen_at, l.last_seen_at, l.matched::int,
      (select count(*)::int from dead_letters d where d.status = 'pending' and d.error_fingerprint = l.fingerprint)
        as pending_dead_letters
    from listed l
    order by l.failures desc, l.last_seen_at desc, l.fingerprint`);
  return {
    window: options.window,
    from,
    to,
    windowHours,
    matched: rows[0]?.matched ?? 0,
    groups: rows.map((row) => ({
      fingerprint: row.fingerprint,
      agent: row.agent,
      step: row.step,
      errorClass: row.error_class,
      pattern: row.pattern,
      sampleError: row.sample_error,
      failures: row.failures,
      previousFailures: row.previous_failures,
      taskHours: row.task_hours,
      firstSeenAt: new Date(row.first_seen_at),
      lastSeenAt: new Date(row.last_seen_at),
      pendingDeadLetters: row.pending_dead_letters,
    })),
  };
}

/**
 * What a group is, for a page filtered by it: from the catalogue, or for a
 * group no pass has met yet (born this hour), from one of its dead letters;
 * undefined when neither knows the fingerprint.
 */
export async function describeErrorGroup(
  db: Executor,
  fingerprint: string,
): Promise<{ agent: string; step: string; errorClass: ErrorClass | null; pattern: string } | undefined> {
  const [row] = await db.execute<{ agent: string; step: string; error_class: ErrorClass | null; pattern: string }>(sql`
    (select agent, step, error_class, pattern from error_groups where fingerprint = ${fingerprint})
    union all
    (select agent, step, error_class, holdfast_error_pattern(last_error) from dead_letters
      where error_fingerprint = ${fingerprint} and status = 'pending' limit 1)
    limit 1`);
  return row
    ? { agent: row.agent, step: row.step, errorClass: row.error_class, pattern: row.pattern ?? '' }
    : undefined;
}
