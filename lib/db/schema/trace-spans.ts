import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { errorClass } from './attempts';
import { type AttemptOutcome, type CostSource, costSources } from './enums';

/**
 * Every OpenTelemetry span that became an attempt (lib/traces), once: its
 * trace and span id are the key, so an export batch sent again (exporters
 * retry) adds nothing. The attempts of one step execution (task and step) are
 * numbered from these rows, by start time, whatever order their spans came in;
 * the attempts log holds the numbered copies (idempotency_key `span:<trace>/<span>`).
 */
export const traceSpans = pgTable(
  'trace_spans',
  {
    traceId: text('trace_id').notNull(),
    spanId: text('span_id').notNull(),
    taskId: text('task_id').notNull(),
    agent: text('agent').notNull(),
    step: text('step').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    finishedAt: timestamp('finished_at', { withTimezone: true }).notNull(),
    /** The attempt number the span stated (`holdfast.attempt`); null: numbered by start time among its siblings. */
    statedAttempt: integer('stated_attempt'),
    outcome: text('outcome').$type<Exclude<AttemptOutcome, 'running'>>().notNull(),
    errorClass: errorClass('error_class'),
    errorText: text('error_text'),
    costMicros: bigint('cost_micros', { mode: 'number' }).notNull(),
    costSource: text('cost_source').$type<CostSource>().notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ name: 'trace_spans_pkey', columns: [table.traceId, table.spanId] }),
    // Serves the numbering: every span of one step execution, each time one of them arrives.
    index('trace_spans_task_id_step_idx').on(table.taskId, table.step),
    // Serves retention: spans go with the raw attempt days.
    index('trace_spans_started_at_idx').on(table.startedAt),
    check('trace_spans_outcome_known', sql`${table.outcome} in ('succeeded', 'failed')`),
    check(
      'trace_spans_cost_source_known',
      sql`${table.costSource} in (${sql.raw(costSources.map((source) => `'${source}'`).join(', '))})`,
    ),
  ],
);
