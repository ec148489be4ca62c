import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { FLEET_FIGURES } from '../db/schema/figures';
import { figureList, rawFigures, zeroFigures } from './figure-sql';
import { latencyBucketSql } from './latency-buckets';
import type { BucketUnit } from '@holdfast/protocol/time-window';
import {
  type LabelledWindow,
  planSegments,
  type RollupEdges,
  type Segment,
  type StoredSpan,
  substituteStoredSpans,
} from './segments';

/** A step by its names: the read models list steps so, and a plan may be limited to them. */
export interface StepName {
  agent: string;
  step: string;
}

/**
 * The read side of the rollups. A read model asks for one or more labelled
 * windows and gets back a relation it can group as it likes:
 *
 *   figures: label, bucket_time (an hour or day start), agent, step, error_class,
 *            and a column per figure (packages/engine/src/db/schema/figures.ts)
 *   latency: label, agent, step, buckets, counts (a sparse histogram; several rows per step)
 *
 * Each window is split by planSegments into raw, five-minute, hourly and daily parts, and
 * the relation is the UNION ALL of one branch per part, each with literal
 * time bounds so PostgreSQL prunes partitions and uses its indexes. When the
 * caller does not group by bucket, a window's hourly and daily parts are read
 * from a stored span of the same hours where the rollup pass keeps one
 * (packages/engine/src/rollups/spans.ts); its rows have a null bucket_time.
 */
export interface FiguresRequest {
  windows: LabelledWindow[];
  /** Only one agent's steps, or only one step. */
  agent?: string;
  step?: string;
  /** Only these (agent, step) pairs (an empty list reads nothing). */
  steps?: StepName[];
  /**
   * 'hour' when the caller groups by hour, so daily rollups stay out; 'day'
   * when it groups by day; '5min' when it groups by minutes (five or fifteen),
   * so only five-minute rollups and the raw log serve, each row in its own
   * five minutes. Unset: the caller does not group by bucket, so stored spans
   * may serve.
   */
  finestBucket?: FinestBucket;
  /** Ignore the rollups and scan the raw log: the benchmark's and tests' reference. */
  rawOnly?: boolean;
}

/** The finest bucket a caller groups by: what the plan's rows must keep apart. */
export type FinestBucket = '1min' | '5min' | 'hour' | 'day';

/** The rollup grain a chart's buckets are summed from. */
export function finestBucketFor(unit: BucketUnit): FinestBucket {
  return unit === '5min' || unit === '15min' ? '5min' : unit;
}

export interface FiguresPlan {
  segments: Segment[];
  figures: SQL;
  readonly latency: SQL;
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
  return {
    segments,
    figures: figuresRelation(segments, request),
    get latency() {
      // A span without its latency histograms (the window before a named one) is read from the hours and days.
      const latencySegments = segments.some((segment) => segment.grain === 'span')
        ? request.windows.flatMap((window) =>
            substituteStoredSpans(
              planSegments([window], edges, request.finestBucket),
              spans.filter((span) => span.latency),
            ),
          )
        : segments;
      return latencyRelation(latencySegments, request);
    },
  };
}

/**
 * The rollups' edges and the spans the last pass stored, in one round trip.
 *
 * Only the last pass's spans (the latest stamp): the previous pass's are kept for a reader that listed them
 * before the last pass committed, but they hold the hours that pass re-rolled (late rows) as they were before
 * it. A reader listing now would pick one of them whenever it matched its window better than the last pass's
 * (its clock a little behind the pass's: another instance's, or read just before the pass began), and miss the
 * late rows; without a span of the last pass to match, it sums the rollups themselves, which are exact.
 */
async function readRollupState(db: Executor): Promise<{ edges: RollupEdges; spans: StoredSpan[] }> {
  const [state] = await db.execute<{
    rolled_to: Date | null;
    fine_rolled_to: Date | null;
    spans: [string, string, boolean][] | null;
  }>(sql`
    select rolled_to, fine_rolled_to,
      (select json_agg(json_build_array(span_from, span_to, latency)) from rollup_spans
        where stored_at = (select max(stored_at) from rollup_spans)) as spans
    from rollup_state where id = 1`);
  const asDate = (moment: Date | null | undefined) => (moment ? new Date(moment) : null);
  return {
    edges: { rolledTo: asDate(state?.rolled_to), fineRolledTo: asDate(state?.fine_rolled_to) },
    spans: (state?.spans ?? []).map(([from, to, latency]) => ({ from: new Date(from), to: new Date(to), latency })),
  };
}

const bound = (moment: Date) => sql`${moment.toISOString()}::timestamptz`;

/**
 * A rolled row's bucket as readers group it: five-minute rows by their hour, like the raw log's rows, unless
 * the reader groups by minutes.
 */
const rolledBucketTime = (segment: Segment, finestBucket: FinestBucket | undefined) =>
  segment.grain === '5min' && finestBucket !== '5min'
    ? sql`date_trunc('hour', bucket_start, 'UTC')`
    : sql`bucket_start`;

/** A raw attempt's bucket as readers group it: its five minutes for a reader grouping by minutes, else its hour. */
const rawBucketTime = (finestBucket: FinestBucket | undefined) =>
  finestBucket === '1min'
    ? sql`date_bin('1 minute', started_at, ${EPOCH})`
    : finestBucket === '5min'
      ? fiveMinutesOf(sql`started_at`)
      : sql`date_trunc('hour', started_at, 'UTC')`;

/** Buckets aligned to the Unix epoch, as the five-minute rollups and the browser's bucketStarts align them. */
const EPOCH = sql`'1970-01-01 00:00:00+00'::timestamptz`;
const fiveMinutesOf = (column: SQL) => sql`date_bin('5 minutes', ${column}, ${EPOCH})`;

/**
 * The request's agent and step filters. A list of steps is matched as a
 * semi-join against a VALUES list rather than an IN list of pairs: PostgreSQL
 * turns the IN list into one OR arm per pair and with dozens of steps plans
 * badly (a bitmap scan per pair, or a whole per-step index read for a few
 * minutes of raw log). Measured at 2,000 steps with 50 listed: three hours of
 * raw log 8.5 ms against 234, an hour of five-minute rows 2-6 ms against 9-15,
 * a stored span 2.8 against 6.8.
 */
function filters(request: FiguresRequest): SQL {
  const pairs = (request.steps ?? []).map(({ agent, step }) => sql`(${agent}::text, ${step}::text)`);
  return sql.join(
    [
      request.agent === undefined ? undefined : sql` and agent = ${request.agent}`,
      request.step === undefined ? undefined : sql` and step = ${request.step}`,
      request.steps === undefined
        ? undefined
        : request.steps.length === 0
          ? sql` and false`
          : sql` and (agent, step) in (select wanted.agent, wanted.step from (values ${sql.join(pairs, sql`, `)}) as wanted(agent, step))`,
    ].filter((part): part is SQL => part !== undefined),
  );
}

function unionAll(branches: SQL[], empty: SQL): SQL {
  return branches.length === 0 ? empty : sql.join(branches, sql` union all `);
}

function figuresRelation(segments: Segment[], request: FiguresRequest): SQL {
  const branches = segments.map((segment) => figuresBranch(segment, request));
  const empty = sql`(select null::text as label, null::timestamptz as bucket_time, null::text as agent, null::text as step,
    null::error_class as error_class, ${zeroFigures()} where false)`;
  return sql`(${unionAll(branches, empty)})`;
}

function figuresBranch(segment: Segment, request: FiguresRequest): SQL {
  return segment.grain === 'span'
    ? sql`(select ${segment.label}::text as label, null::timestamptz as bucket_time, agent, step, error_class, ${figureList()}
          from span_rollups
          where span_from = ${bound(segment.from)} and span_to = ${bound(segment.to)}${filters(request)})`
    : segment.grain === 'raw'
      ? sql`(select ${segment.label}::text as label, ${rawBucketTime(request.finestBucket)} as bucket_time, agent, step, error_class,
            ${rawFigures()}
          from attempts
          where started_at >= ${bound(segment.from)} and started_at < ${bound(segment.to)}${filters(request)}
          group by 2, 3, 4, 5)`
      : sql`(select ${segment.label}::text as label, ${rolledBucketTime(segment, request.finestBucket)} as bucket_time, agent, step, error_class,
            ${figureList()}
          from attempt_rollups
          where grain = ${segment.grain} and bucket_start >= ${bound(segment.from)} and bucket_start < ${bound(segment.to)}${filters(request)})`;
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
            where started_at >= ${bound(segment.from)} and started_at < ${bound(segment.to)} and latency_ms is not null${filters(request)}
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
export function allStepsRelation(segments: Segment[], finestBucket: FinestBucket): SQL {
  const branches = segments.map((segment) => {
    if (segment.grain === 'span') throw new Error('allStepsRelation needs a plan made with a finestBucket (no spans)');
    return segment.grain === 'raw'
      ? sql`(select ${rawBucketTime(finestBucket)} as bucket_time, ${rawFigures(FLEET_FIGURES)}
          from attempts
          where started_at >= ${bound(segment.from)} and started_at < ${bound(segment.to)}
          group by 1)`
      : sql`(select ${rolledBucketTime(segment, finestBucket)} as bucket_time, ${figureList(FLEET_FIGURES)}
          from all_steps_rollups
          where grain = ${segment.grain} and bucket_start >= ${bound(segment.from)} and bucket_start < ${bound(segment.to)})`;
  });
  const empty = sql`(select null::timestamptz as bucket_time, ${zeroFigures(FLEET_FIGURES)} where false)`;
  return sql`(${unionAll(branches, empty)})`;
}

/** The ISO string of a bucket start in UTC, as charts and the browser read it. */
export function bucketLabelSql(unit: BucketUnit, column: SQL): SQL {
  const start =
    unit === '1min'
      ? sql`date_bin('1 minute', ${column}, ${EPOCH})`
      : unit === '5min'
        ? fiveMinutesOf(column)
        : unit === '15min'
          ? sql`date_bin('15 minutes', ${column}, ${EPOCH})`
          : sql`date_trunc('${sql.raw(unit)}', ${column}, 'UTC')`;
  return sql`to_char(${start} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;
}
