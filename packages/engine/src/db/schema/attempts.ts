import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  check,
  customType,
  index,
  integer,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';
import {
  attemptSources,
  errorClasses,
  type AttemptOutcome,
  type AttemptSource,
  type CostSource,
} from '@holdfast/protocol/enums';
export {
  attemptOutcomes,
  attemptSources,
  costSources,
  errorClasses,
  type AttemptOutcome,
  type AttemptSource,
  type CostSource,
  type ErrorClass,
} from '@holdfast/protocol/enums';

export const errorClass = pgEnum('error_class', errorClasses);

/** A 64-bit transaction id (xid8): comparable, and never wraps around. */
export const transactionId = customType<{ data: string; driverData: string }>({ dataType: () => 'xid8' });

/**
 * One row per execution of a step. Attempt 1 is the primary execution; 2 and
 * up are retries. What retrying cost is each row's retry_cost_micros (see there).
 *
 * The table is partitioned by day on started_at (see
 * packages/engine/drizzle/0004_partition_attempts.sql and packages/engine/src/db/attempt-partitions.ts), so
 * retention drops whole days instead of deleting rows. PostgreSQL requires
 * every unique index of a partitioned table to include the partition column,
 * which is why started_at is part of the primary key.
 */
export const attempts = pgTable(
  'attempts',
  {
    id: bigserial('id', { mode: 'number' }).notNull(),
    taskId: text('task_id').notNull(),
    agent: text('agent').notNull(),
    step: text('step').notNull(),
    /**
     * Which pass of a step run in a loop (the step protocol's `iteration`; 0 when it is not looped). Each
     * pass is its own operation with its own key, so its attempts are numbered from 1 again.
     */
    iteration: integer('iteration').notNull().default(0),
    attemptNumber: integer('attempt_number').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    latencyMs: integer('latency_ms'),
    outcome: text('outcome').$type<AttemptOutcome>().notNull(),
    errorClass: errorClass('error_class'),
    errorText: text('error_text'),
    /** Cost in micro-dollars (1 USD = 1,000,000), so sums stay exact. */
    costMicros: bigint('cost_micros', { mode: 'number' }).notNull().default(0),
    /**
     * Where the cost came from: reported, priced (tokens times the price table), rule (a failed-call
     * rule), none (packages/engine/src/core/pricing/price-call.ts). Null where it was not recorded (attempts reported
     * with a cost before OpenTelemetry ingest, and the step protocol's, which are reported).
     */
    costSource: text('cost_source').$type<CostSource>(),
    /**
     * The model the attempt called as model budgets count it (budgetModelOf: lower-cased, no dated suffix): as its
     * begin declared it, else as its finish, report or span named it; null when nothing named one.
     */
    model: text('model'),
    /**
     * What this attempt adds to its execution's retry-attributable spend: the spend beyond what one try would
     * have cost (the succeeded attempt's cost when the execution succeeded, else the first attempt's). Set as
     * each attempt ends, so it only grows and sums like cost: a failed retry adds its own cost, a succeeded
     * retry adds the first attempt's, a first attempt adds nothing (its own cost only when it is written after
     * a retry of it had succeeded already). The rule: packages/engine/src/core/attempts/retry-spend.ts, kept in SQL by the
     * attempts_retry_cost trigger (packages/engine/drizzle/0048) and, for spans, by packages/engine/src/traces/store-spans.ts.
     */
    retryCostMicros: bigint('retry_cost_micros', { mode: 'number' }).notNull().default(0),
    idempotencyKey: text('idempotency_key'),
    /** How the attempt reached Holdfast (library, http, traces); null on rows recorded before it was kept. */
    source: text('source').$type<AttemptSource>(),
    /** The run (worker execution) that made this attempt, when it came through runStep. */
    runKey: text('run_key'),
    recordedAt: timestamp('recorded_at', { withTimezone: true }).notNull().defaultNow(),
    /**
     * The transaction that last wrote this row (set on insert, and by a
     * trigger on update). The rollup sweep reads it to find rows that changed
     * after their hour was rolled up.
     */
    changedXid: transactionId('changed_xid').notNull().default(sql`pg_current_xact_id()`),
  },
  (table) => [
    // A redelivered report of the same attempt must not count twice. Its task_id
    // prefix also serves the task timeline (every attempt of one task) and the
    // check for an earlier report of the same attempt in any partition.
    primaryKey({
      name: 'attempts_pkey',
      columns: [table.taskId, table.step, table.iteration, table.attemptNumber, table.startedAt],
    }),
    // Raw-log reads cover at most the edges of a window (the rest comes from
    // rollups); rows arrive roughly in time order, so a block-range index is
    // enough and costs almost nothing on insert.
    // Small ranges (16 pages, about 900 rows): a read of a few minutes at a window's edge then
    // scans about that much, not the 128 pages (up to 45 minutes of a busy log) of the default.
    // autosummarize: a range is indexed once filled, not only at the next vacuum.
    index('attempts_started_at_idx').using('brin', table.startedAt).with({ pages_per_range: 16, autosummarize: 'on' }),
    // Serves per-step drill-downs: one step's attempts in a window.
    index('attempts_agent_step_started_at_idx').on(table.agent, table.step, table.startedAt),
    // Serves the rollup sweep: rows changed since its last pass.
    index('attempts_changed_xid_idx').on(table.changedXid),
    check('attempts_attempt_number_positive', sql`${table.attemptNumber} >= 1`),
    check('attempts_iteration_not_negative', sql`${table.iteration} >= 0`),
    check('attempts_outcome_known', sql`${table.outcome} in ('running', 'succeeded', 'failed')`),
    check('attempts_finished_after_started', sql`${table.finishedAt} >= ${table.startedAt}`),
    // Only a running attempt lacks its end.
    check(
      'attempts_finished_unless_running',
      sql`(${table.outcome} = 'running') = (${table.finishedAt} is null and ${table.latencyMs} is null)`,
    ),
    check(
      'attempts_source_known',
      sql`${table.source} in (${sql.raw(attemptSources.map((source) => `'${source}'`).join(', '))})`,
    ),
    check('attempts_latency_not_negative', sql`${table.latencyMs} >= 0`),
    check('attempts_cost_not_negative', sql`${table.costMicros} >= 0`),
    check('attempts_retry_cost_not_negative', sql`${table.retryCostMicros} >= 0`),
    // A failure without a class and a non-blank text is a failure nobody can triage.
    check(
      'attempts_failure_is_explained',
      sql`(${table.outcome} in ('running', 'succeeded') and ${table.errorClass} is null)
        or (${table.outcome} = 'failed' and ${table.errorClass} is not null
            and ${table.errorText} is not null and btrim(${table.errorText}) <> '')`,
    ),
  ],
);

export type Attempt = typeof attempts.$inferSelect;

/**
 * One row per attempt identity (task, step, iteration, attempt number), outside the
 * partitioned log: its primary key is what makes a second report of the same
 * attempt impossible, whatever its start time (a unique index on the
 * partitioned table itself would have to include started_at). started_at
 * points to the row in the log and lets retention delete identities with
 * their days.
 */
export const attemptIdentities = pgTable(
  'attempt_identities',
  {
    taskId: text('task_id').notNull(),
    step: text('step').notNull(),
    iteration: integer('iteration').notNull().default(0),
    attemptNumber: integer('attempt_number').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    primaryKey({
      name: 'attempt_identities_pkey',
      columns: [table.taskId, table.step, table.iteration, table.attemptNumber],
    }),
    index('attempt_identities_started_at_idx').on(table.startedAt),
  ],
);

/**
 * Which ways each step's attempts reached Holdfast (library, http, traces), and when last: the console's
 * source badge per step. Kept by the rollup pass from the attempts it rolls (packages/engine/src/rollups), so recording an
 * attempt writes nothing more.
 */
export const stepSources = pgTable(
  'step_sources',
  {
    agent: text('agent').notNull(),
    step: text('step').notNull(),
    source: text('source').$type<AttemptSource>().notNull(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    primaryKey({ name: 'step_sources_pkey', columns: [table.agent, table.step, table.source] }),
    check(
      'step_sources_source_known',
      sql`${table.source} in (${sql.raw(attemptSources.map((source) => `'${source}'`).join(', '))})`,
    ),
  ],
);
