import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { latencyBucketSql } from './latency-buckets';
import type { TimeRange } from '../time-window';
import { planSegments, type LabelledWindow, type RollupEdges, type Segment, substituteStoredSpans } from './segments';

/**
 * The read side of the rollups. A read model asks for one or more labelled
 * windows and gets back a relation it can group as it likes:
 *
 *   figures: label, bucket_time (an hour or day start), agent, step, error_class,
 *            attempts, retries, failures, executions, first_try_successes,
 *            cost_micros, retry_cost_micros
 *   latency: label, agent, step, buckets, counts (a sparse histogram; several rows per step)
 *
 * Each window is split by planSegments into raw, five-minute, hourly and daily parts, and
 * the relation is the UNION ALL of one branch per part, each with literal
 * time bounds so PostgreSQL prunes partitions and uses its indexes. When the
 * caller does not group by bucket, a window's hourly and daily parts are read
 * from a stored span of the same hours where the rollup pass keeps one
 * (lib/rollups/spans.ts); its rows have a null bucket_time.
 */
export interface FiguresRequest {
  windows: LabelledWindow[];
  /** Only one agent's steps, or only one step. */
  agent?: string;
  step?: string;
  /** Only these (agent, step) pairs (an empty list reads nothing). */
  steps?: { agent: string; step: string }[];
  /**
   * 'hour' when the caller groups by hour, so daily rollups stay out; 'day'
   * when it groups by day. Unset: the caller does not group by bucket, so
   * stored spans may serve.
   */
  finestBucket?: 'hour' | 'day';
  /** Ignore the rollups and scan the raw log: the benchmark's and tests' reference. */
  rawOnly?: boolean;
}

export interface FiguresPlan {
  segments: Segment[];
  figures: SQL;
  latency: SQL;
}

/** Where the hourly rollups end: hours before this are served from them. */
export async function readRollupEdge(db: Executor): Promise<Date | null> {
  const [state] = await db.execute<{ rolled_to: Date | null }>(sql`select rolled_to from rollup_state where id = 1`);
  return state?.rolled_to ? new Date(state.rolled_to) : null;
}

export async function planFigures(db: Executor, request: FiguresRequest): Promise<FiguresPlan> {
  const { edges, spans } = request.rawOnly
    ? { edges: { rolledTo: null, fineRolledTo: null }, spans: [] }
    : await readRollupState(db);
  const planned = planSegments(request.windows, edges, request.finestBucket);
  const segments = request.finestBucket === undefined ? substituteStoredSpans(planned, spans) : planned;
  return { segments, figures: figuresRelation(segments, request), latency: latencyRelation(segments, request) };
}

/** The rollups' edges and the stored spans, in one round trip. */
async function readRollupState(db: Executor): Promise<{ edges: RollupEdges; spans: TimeRange[] }> {
  const [state] = await db.execute<{
    rolled_to: Date | null;
    fine_rolled_to: Date | null;
    spans: [string, string][] | null;
  }>(sql`
    select rolled_to, fine_rolled_to, (select json_agg(json_build_array(span_from, span_to)) from rollup_spans) as spans
    from rollup_state where id = 1`);
  const asDate = (moment: Date | null | undefined) => (moment ? new Date(moment) : null);
  return {
    edges: { rolledTo: asDate(state?.rolled_to), fineRolledTo: asDate(state?.fine_rolled_to) },
    spans: (state?.spans ?? []).map(([from, to]) => ({ from: new Date(from), to: new Date(to) })),
  };
}

const bound = (moment: Date) => sql`${moment.toISOString()}::timestamptz`;

/** A rolled row's bucket as readers group it: five-minute rows by their hour, like the raw log's rows. */
const rolledBucketTime = (segment: Segment) =>
  segment.grain === '5min' ? sql`date_trunc('hour', bucket_start, 'UTC')` : sql`bucket_start`;

const HOUR_MS = 3_600_000;

/**
 * The request's agent and step filters for one branch. A list of steps on a
 * raw part of an hour or less (the minutes at a window's edges) is matched
 * after the time range is read rather than through the per-step index: a
 * bitmap of one index scan per step costs more than reading those minutes
 * (12 ms against 5 for 40 steps over 4 minutes of a 30 M log).
 */
function filters(request: FiguresRequest, segment?: Segment): SQL {
  const shortRawPart =
    segment !== undefined && segment.grain === 'raw' && segment.to.getTime() - segment.from.getTime() <= HOUR_MS;
  const pairs = (request.steps ?? []).map(({ agent, step }) => sql`(${agent}::text, ${step}::text)`);
  return sql.join(
    [
      request.agent === undefined ? undefined : sql` and agent = ${request.agent}`,
      request.step === undefined ? undefined : sql` and step = ${request.step}`,
      request.steps === undefined
        ? undefined
        : request.steps.length === 0
          ? sql` and false`
          : shortRawPart
            ? // The concatenation keeps PostgreSQL off the (agent, step, started_at) index here.
              sql` and (agent || '', step || '') in (${sql.join(pairs, sql`, `)})`
            : sql` and (agent, step) in (${sql.join(pairs, sql`, `)})`,
    ].filter((part): part is SQL => part !== undefined),
  );
}

function unionAll(branches: SQL[], empty: SQL): SQL {
  return branches.length === 0 ? empty : sql.join(branches, sql` union all `);
}

function figuresRelation(segments: Segment[], request: FiguresRequest): SQL {
  const branches = segments.map((segment) =>
    segment.grain === 'span'
      ? sql`(select ${segment.label}::text as label, null::timestamptz as bucket_time, agent, step, error_class, attempts, retries,
            failures, executions, first_try_successes, cost_micros, retry_cost_micros
          from span_rollups
          where span_from = ${bound(segment.from)} and span_to = ${bound(segment.to)}${filters(request)})`
      : segment.grain === 'raw'
        ? sql`(select ${segment.label}::text as label, date_trunc('hour', started_at, 'UTC') as bucket_time, agent, step, error_class,
            count(*)::bigint as attempts,
            (count(*) filter (where attempt_number > 1))::bigint as retries,
            (count(*) filter (where outcome = 'failed'))::bigint as failures,
            (count(*) filter (where attempt_number = 1))::bigint as executions,
            (count(*) filter (where attempt_number = 1 and outcome = 'succeeded'))::bigint as first_try_successes,
            coalesce(sum(cost_micros), 0)::bigint as cost_micros,
            coalesce(sum(cost_micros) filter (where attempt_number > 1), 0)::bigint as retry_cost_micros
          from attempts
          where started_at >= ${bound(segment.from)} and started_at < ${bound(segment.to)}${filters(request, segment)}
          group by 2, 3, 4, 5)`
        : sql`(select ${segment.label}::text as label, ${rolledBucketTime(segment)} as bucket_time, agent, step, error_class, attempts,
            retries, failures, executions, first_try_successes, cost_micros, retry_cost_micros
          from attempt_rollups
          where grain = ${segment.grain} and bucket_start >= ${bound(segment.from)} and bucket_start < ${bound(segment.to)}${filters(request)})`,
  );
  const empty = sql`(select null::text as label, null::timestamptz as bucket_time, null::text as agent, null::text as step,
    null::error_class as error_class, 0::bigint as attempts, 0::bigint as retries, 0::bigint as failures, 0::bigint as executions,
    0::bigint as first_try_successes, 0::bigint as cost_micros, 0::bigint as retry_cost_micros where false)`;
  return sql`(${unionAll(branches, empty)})`;
}

function latencyRelation(segments: Segment[], request: FiguresRequest): SQL {
  const branches = segments.map((segment) =>
    segment.grain === 'span'
      ? sql`(select ${segment.label}::text as label, agent, step, buckets, counts
          from span_latency_rollups
          where span_from = ${bound(segment.from)} and span_to = ${bound(segment.to)}${filters(request)})`
      : segment.grain === 'raw'
        ? sql`(select ${segment.label}::text as label, agent, step,
            array_agg(latency_bucket order by latency_bucket) as buckets, array_agg(attempts order by latency_bucket) as counts
          from (
            select agent, step, ${sql.raw(latencyBucketSql('latency_ms'))} as latency_bucket, count(*)::bigint as attempts
            from attempts
            where started_at >= ${bound(segment.from)} and started_at < ${bound(segment.to)} and latency_ms is not null${filters(request, segment)}
            group by 1, 2, 3
          ) as per_bucket
          group by agent, step)`
        : sql`(select ${segment.label}::text as label, agent, step, buckets, counts
          from attempt_latency_rollups
          where grain = ${segment.grain} and bucket_start >= ${bound(segment.from)} and bucket_start < ${bound(segment.to)}${filters(request)})`,
  );
  const empty = sql`(select null::text as label, null::text as agent, null::text as step, null::smallint[] as buckets, null::bigint[] as counts where false)`;
  return sql`(${unionAll(branches, empty)})`;
}

/**
 * The whole fleet's figures per bucket (bucket_time, attempts, retries,
 * cost_micros, retry_cost_micros) over the segments of a plan made with a
 * finestBucket: the rolled hours and days from all_steps_rollups, one row per
 * bucket whatever the number of steps, and the raw parts from the log grouped
 * by hour. A plan's agent and step filters do not apply here.
 */
export function allStepsRelation(segments: Segment[]): SQL {
  const branches = segments.map((segment) => {
    if (segment.grain === 'span') throw new Error('allStepsRelation needs a plan made with a finestBucket (no spans)');
    return segment.grain === 'raw'
      ? sql`(select date_trunc('hour', started_at, 'UTC') as bucket_time, count(*)::bigint as attempts,
            (count(*) filter (where attempt_number > 1))::bigint as retries,
            coalesce(sum(cost_micros), 0)::bigint as cost_micros,
            coalesce(sum(cost_micros) filter (where attempt_number > 1), 0)::bigint as retry_cost_micros
          from attempts
          where started_at >= ${bound(segment.from)} and started_at < ${bound(segment.to)}
          group by 1)`
      : sql`(select ${rolledBucketTime(segment)} as bucket_time, attempts, retries, cost_micros, retry_cost_micros
          from all_steps_rollups
          where grain = ${segment.grain} and bucket_start >= ${bound(segment.from)} and bucket_start < ${bound(segment.to)})`;
  });
  const empty = sql`(select null::timestamptz as bucket_time, 0::bigint as attempts, 0::bigint as retries,
    0::bigint as cost_micros, 0::bigint as retry_cost_micros where false)`;
  return sql`(${unionAll(branches, empty)})`;
}

/** The ISO string of a bucket start in UTC, as charts and the browser read it. */
export function bucketLabelSql(unit: 'hour' | 'day', column: SQL): SQL {
  return sql`to_char(date_trunc('${sql.raw(unit)}', ${column}, 'UTC') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;
}
