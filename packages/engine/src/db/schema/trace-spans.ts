import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { errorClass } from './attempts';
import { type AttemptOutcome, type CostSource, costSources } from '@holdfast/protocol/enums';

/** What a stored span is: a counted span (`call`), or an HTTP client span under a model call (`http_try`). */
export const traceSpanKinds = ['call', 'http_try'] as const;
export type TraceSpanKind = (typeof traceSpanKinds)[number];

/**
 * Every OpenTelemetry span that became an attempt (packages/engine/src/traces), once: its
 * trace and span id are the key, so an export batch sent again (exporters
 * retry) adds nothing. The attempts of one step execution (task and step) are
 * numbered from these rows, by start time, whatever order their spans came in;
 * the attempts log holds the numbered copies (idempotency_key `span:<trace>/<span>`).
 *
 * HTTP client spans (`http_try`) are kept too, named only by their parent: when their parent is a
 * model call (`model_call`), each is one try of that call, and the call's attempts are its tries.
 * A try may come before its parent (children end first), so it waits here, task unknown, until the
 * parent comes; it is matched only to a parent of an agent its sender's token may act for.
 */
export const traceSpans = pgTable(
  'trace_spans',
  {
    traceId: text('trace_id').notNull(),
    spanId: text('span_id').notNull(),
    kind: text('kind').$type<TraceSpanKind>().notNull().default('call'),
    /** The parent span's id (null for a root span): a try's parent is the model call it is a try of. */
    parentSpanId: text('parent_span_id'),
    /** Null on a try: its task, agent and step are its parent's. */
    taskId: text('task_id'),
    agent: text('agent'),
    step: text('step'),
    /** A counted model call (chat, text completion, content generation, embeddings): HTTP tries attach to it. */
    modelCall: boolean('model_call').notNull().default(false),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    finishedAt: timestamp('finished_at', { withTimezone: true }).notNull(),
    /** The attempt number the span stated (`holdfast.attempt`); null: numbered by start time among its siblings. */
    statedAttempt: integer('stated_attempt'),
    outcome: text('outcome').$type<Exclude<AttemptOutcome, 'running'>>().notNull(),
    errorClass: errorClass('error_class'),
    errorText: text('error_text'),
    /** A call's cost (its last try's, when it has tries); a try's own: 0, by the failed-call rule or for want of tokens. */
    costMicros: bigint('cost_micros', { mode: 'number' }).notNull(),
    costSource: text('cost_source').$type<CostSource>().notNull(),
    /** A call's model as budgets count it (the requested one, else the one that answered): its attempts carry it. */
    model: text('model'),
    /** A try's `http.response.status_code`. */
    httpStatus: integer('http_status'),
    /** A try's `http.request.resend_count` (absent on the first send). */
    resendCount: integer('resend_count'),
    /** A try's sender: the agents its token may act for; null, any agent. */
    senderAgents: text('sender_agents').array(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ name: 'trace_spans_pkey', columns: [table.traceId, table.spanId] }),
    // Serves the numbering: every span of one step execution, each time one of them arrives.
    index('trace_spans_task_id_step_idx').on(table.taskId, table.step),
    // Serves the numbering too: the tries of a model call, whichever of them came first.
    index('trace_spans_trace_id_parent_span_id_idx')
      .on(table.traceId, table.parentSpanId)
      .where(sql`${table.kind} = 'http_try'`),
    // Serves retention: spans go with the raw attempt days.
    index('trace_spans_started_at_idx').on(table.startedAt),
    check('trace_spans_outcome_known', sql`${table.outcome} in ('succeeded', 'failed')`),
    check(
      'trace_spans_cost_source_known',
      sql`${table.costSource} in (${sql.raw(costSources.map((source) => `'${source}'`).join(', '))})`,
    ),
    check('trace_spans_kind_known', sql`${table.kind} in ('call', 'http_try')`),
    // A call names its task, agent and step; a try names its parent.
    check(
      'trace_spans_kind_named',
      sql`(${table.kind} = 'call' and ${table.taskId} is not null and ${table.agent} is not null and ${table.step} is not null)
        or (${table.kind} = 'http_try' and ${table.parentSpanId} is not null)`,
    ),
  ],
);
