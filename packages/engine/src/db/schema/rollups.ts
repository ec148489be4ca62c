import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  unique,
} from 'drizzle-orm/pg-core';
import { errorClass, transactionId } from './attempts';
import { FLEET_FIGURES, figureColumns } from './figures';

/** A rollup bucket's length: five minutes, an hour or a UTC day. */
export type RollupGrain = '5min' | 'hour' | 'day';

/**
 * Five-minute, hourly and daily sums of the attempt log per (agent, step,
 * error class). Every figure here is a count or a micro-dollar sum, so adding
 * rows of any set of buckets gives the exact figure for their union. Hourly
 * rows are the sum of their five-minute rows and daily rows of their hourly
 * ones; readers use a grain only for whole buckets that are rolled up.
 * Five-minute rows serve the partial hours at a window's edges (so a read
 * scans at most five minutes of raw log there) and are kept only as long as
 * the raw log itself.
 */
export const attemptRollups = pgTable(
  'attempt_rollups',
  {
    grain: text('grain').$type<RollupGrain>().notNull(),
    bucketStart: timestamp('bucket_start', { withTimezone: true }).notNull(),
    agent: text('agent').notNull(),
    step: text('step').notNull(),
    /** Null for attempts that did not fail (succeeded, or still running). */
    errorClass: errorClass('error_class'),
    ...figureColumns(),
  },
  (table) => [
    // NULLS NOT DISTINCT (PostgreSQL 15+): one row per bucket even for the null class.
    unique('attempt_rollups_bucket_key')
      .on(table.grain, table.bucketStart, table.agent, table.step, table.errorClass)
      .nullsNotDistinct(),
    index('attempt_rollups_agent_step_idx').on(table.agent, table.step, table.grain, table.bucketStart),
    check('attempt_rollups_grain_known', sql`${table.grain} in ('5min', 'hour', 'day')`),
  ],
);

/**
 * Latency histograms in the same buckets, one row per (agent, step): how many
 * finished attempts fell in each log-scale latency bucket
 * (packages/engine/src/rollups/latency-buckets.ts), as two parallel arrays holding only the
 * buckets that occurred. Percentiles cannot be added across hours, but
 * histograms can; arrays keep a month of them to a few thousand rows.
 */
export const attemptLatencyRollups = pgTable(
  'attempt_latency_rollups',
  {
    grain: text('grain').$type<RollupGrain>().notNull(),
    bucketStart: timestamp('bucket_start', { withTimezone: true }).notNull(),
    agent: text('agent').notNull(),
    step: text('step').notNull(),
    /** Latency bucket numbers, ascending. */
    buckets: smallint('buckets').array().notNull(),
    /** Attempts in each of those buckets. */
    counts: bigint('counts', { mode: 'number' }).array().notNull(),
  },
  (table) => [
    primaryKey({
      name: 'attempt_latency_rollups_pkey',
      columns: [table.grain, table.bucketStart, table.agent, table.step],
    }),
    check('attempt_latency_rollups_grain_known', sql`${table.grain} in ('5min', 'hour', 'day')`),
    check('attempt_latency_rollups_arrays_match', sql`cardinality(${table.buckets}) = cardinality(${table.counts})`),
  ],
);

/**
 * Where the rollups stand (a single row). Hours before `rolledTo` are served
 * from rollups; rows written by transactions from `processedXid` on may still
 * need re-rolling (a late report, or a running attempt that finished).
 */
/**
 * What an analytics family (packages/engine/src/rollups/families/) keeps of its own between passes, one row each,
 * as the family says: the baselines the ends of the baseline they hold, the execution shapes whether they hold
 * every hour kept raw. A migration that wants a family refilled changes its row. The pass's own watermarks, which
 * every family and every reader go by, are rollup_state's.
 */
export const rollupFamilyState = pgTable('rollup_family_state', {
  family: text('family').primaryKey(),
  state: jsonb('state').notNull().default({}),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const rollupState = pgTable(
  'rollup_state',
  {
    id: integer('id').primaryKey().default(1),
    rolledTo: timestamp('rolled_to', { withTimezone: true }),
    /**
     * Every five-minute bucket before it is in the rollups: the closed hours'
     * buckets (before rolled_to) and those of the open hour that had closed
     * at the last pass, which rewrites the open hour's buckets each time.
     */
    fineRolledTo: timestamp('fine_rolled_to', { withTimezone: true }),
    processedXid: transactionId('processed_xid').notNull().default(sql`'0'::xid8`),
    /**
     * Retired: the baselines' and the execution shapes' own state is their rows of rollup_family_state since
     * migration 0051. An instance of the release before still writes these during a rolling upgrade; a later
     * release's migration drops them.
     */
    baselineEnd: timestamp('baseline_end', { withTimezone: true }),
    baselineDaysEnd: timestamp('baseline_days_end', { withTimezone: true }),
    executionShapesFilled: boolean('execution_shapes_filled').notNull().default(false),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [check('rollup_state_single_row', sql`${table.id} = 1`)],
);

/**
 * Each step's retry share of spend on each of the 7 baseline days of the
 * anomaly rule (packages/engine/src/rollups/step-anomalies.ts) that had attempts, as of
 * rollup_state.baseline_end: the rule's whole baseline input, one row per
 * step. The rule reads them on every Overview and Steps page; summed from
 * hourly rollups per request they cost a week of hours per step (seconds with
 * thousands of steps), and they change only when the hour turns or a late row
 * re-rolls one of those hours. The rollup pass rewrites them then, in its own
 * transaction.
 */
export const anomalyBaselines = pgTable(
  'anomaly_baselines',
  {
    agent: text('agent').notNull(),
    step: text('step').notNull(),
    /** Oldest day first; days without attempts left out. */
    shares: doublePrecision('shares').array().notNull(),
  },
  (table) => [primaryKey({ name: 'anomaly_baselines_pkey', columns: [table.agent, table.step] })],
);

/**
 * Each step's sums over each of the 7 baseline days that had attempts, as of
 * rollup_state.baseline_days_end: what anomaly_baselines' shares are computed
 * from. Kept so the pass that closes an hour moves them by that hour (each day
 * gains an hour at its end and loses one at its start: eight hours of rows)
 * instead of summing a week of hourly rows per step again.
 */
export const anomalyBaselineDays = pgTable(
  'anomaly_baseline_days',
  {
    agent: text('agent').notNull(),
    step: text('step').notNull(),
    /** 0 is the day just before the end, 6 the oldest. */
    day: smallint('day').notNull(),
    ...figureColumns(['attempts', 'costMicros', 'retryCostMicros']),
  },
  (table) => [
    primaryKey({ name: 'anomaly_baseline_days_pkey', columns: [table.agent, table.step, table.day] }),
    check('anomaly_baseline_days_day_known', sql`${table.day} between 0 and 6`),
  ],
);

/**
 * Sums of the rollups over a few fixed whole-hour spans, per (agent, step,
 * error class): the spans the named windows (24 h, 7 d, 30 d, and the window
 * before each) cover from the rollups while the hour after the rollups' edge
 * is open. A window read in that hour takes its rolled part from here in one
 * row per step and class, instead of summing a row per step, class and hour
 * (with thousands of steps, millions of rows for 30 days). The rollup pass
 * rewrites them, and rollup_spans lists the spans held, so an empty span is
 * told from a missing one. A pass keeps the spans of the pass before it (a
 * reader reads the list and the rows in two statements) and drops older ones.
 */
export const rollupSpans = pgTable(
  'rollup_spans',
  {
    spanFrom: timestamp('span_from', { withTimezone: true }).notNull(),
    spanTo: timestamp('span_to', { withTimezone: true }).notNull(),
    /**
     * Which pass wrote the span (packages/engine/src/rollups/pass-stamp.ts): the last pass's spans are the ones moved. The
     * default serves an instance of an earlier version still running while instances are replaced one by one.
     */
    storedAt: timestamp('stored_at', { withTimezone: true }).notNull().defaultNow(),
    /**
     * Whether span_latency_rollups holds the span's latency histograms. Only the named windows' own spans
     * keep them: no page compares latency with the window before, so those spans' histograms were never
     * read, and moving them was about a third of the hour-turn pass with thousands of steps. A reader wanting
     * the latency of a span without them reads the hourly and daily histograms. The default serves an
     * instance of an earlier version (it stores every span's histograms) during a rolling upgrade.
     */
    latency: boolean('latency').notNull().default(true),
  },
  (table) => [primaryKey({ name: 'rollup_spans_pkey', columns: [table.spanFrom, table.spanTo] })],
);

export const spanRollups = pgTable(
  'span_rollups',
  {
    spanFrom: timestamp('span_from', { withTimezone: true }).notNull(),
    spanTo: timestamp('span_to', { withTimezone: true }).notNull(),
    agent: text('agent').notNull(),
    step: text('step').notNull(),
    errorClass: errorClass('error_class'),
    ...figureColumns(),
  },
  (table) => [
    unique('span_rollups_span_key')
      .on(table.spanFrom, table.spanTo, table.agent, table.step, table.errorClass)
      .nullsNotDistinct(),
  ],
);

/** The latency histograms of the same spans, one row per (agent, step), as in attempt_latency_rollups. */
export const spanLatencyRollups = pgTable(
  'span_latency_rollups',
  {
    spanFrom: timestamp('span_from', { withTimezone: true }).notNull(),
    spanTo: timestamp('span_to', { withTimezone: true }).notNull(),
    agent: text('agent').notNull(),
    step: text('step').notNull(),
    buckets: smallint('buckets').array().notNull(),
    counts: bigint('counts', { mode: 'number' }).array().notNull(),
  },
  (table) => [
    primaryKey({
      name: 'span_latency_rollups_pkey',
      columns: [table.spanFrom, table.spanTo, table.agent, table.step],
    }),
    check('span_latency_rollups_arrays_match', sql`cardinality(${table.buckets}) = cardinality(${table.counts})`),
  ],
);

/**
 * The whole fleet's sums per hour and per day, with no step dimension: what
 * the Overview charts per bucket (spend, and retry spend's share of it). Read
 * from attempt_rollups, a 30-day chart of 2,000 steps sums a row per step,
 * class and bucket; here it is one row per bucket. Written by the rollup pass
 * beside the per-step rows it sums, in the same transaction.
 */
export const allStepsRollups = pgTable(
  'all_steps_rollups',
  {
    grain: text('grain').$type<RollupGrain>().notNull(),
    bucketStart: timestamp('bucket_start', { withTimezone: true }).notNull(),
    ...figureColumns(FLEET_FIGURES),
  },
  (table) => [
    primaryKey({ name: 'all_steps_rollups_pkey', columns: [table.grain, table.bucketStart] }),
    check('all_steps_rollups_grain_known', sql`${table.grain} in ('5min', 'hour', 'day')`),
  ],
);
