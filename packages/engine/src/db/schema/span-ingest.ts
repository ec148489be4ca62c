import { sql } from 'drizzle-orm';
import { bigint, check, index, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * What became of the spans exporters sent, per service: every span of a batch the receiver stored is counted
 * under one outcome (packages/engine/src/traces/ingest-tally.ts), so someone who points an exporter at Holdfast and sees no
 * attempts can read why on the Ingest page and in /metrics. Counted per delivery: a batch an exporter sends
 * twice is counted twice (its spans are stored once).
 */
export const SPAN_OUTCOMES = [
  'call',
  'http_try',
  'run',
  'run_part',
  'rejected',
  'ignored_operation',
  'ignored_unrecognised',
  'other',
] as const;
export type SpanOutcome = (typeof SPAN_OUTCOMES)[number];

const outcomeKnown = (column: unknown) =>
  sql`${column} in (${sql.raw(SPAN_OUTCOMES.map((outcome) => `'${outcome}'`).join(', '))})`;

/** Spans per hour, service and outcome, with the last span of an ignored kind as a sample of its shape. */
export const spanIngestHours = pgTable(
  'span_ingest_hours',
  {
    hour: timestamp('hour', { withTimezone: true }).notNull(),
    /** The resource's `service.name` (at most MAX_SERVICES_COUNTED services, then `(other)`). */
    service: text('service').notNull(),
    outcome: text('outcome').$type<SpanOutcome>().notNull(),
    spans: bigint('spans', { mode: 'number' }).notNull(),
    /** For ignored spans: the last one's name, operation and call-like attribute keys (never their values). */
    sample: jsonb('sample').$type<SpanShapeSample>(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    primaryKey({ name: 'span_ingest_hours_pkey', columns: [table.hour, table.service, table.outcome] }),
    check('span_ingest_hours_outcome_known', outcomeKnown(table.outcome)),
  ],
);

/** The same counts since the start, never deleted: the Prometheus counter holdfast_trace_spans_total. */
export const spanIngestTotals = pgTable(
  'span_ingest_totals',
  {
    service: text('service').notNull(),
    outcome: text('outcome').$type<SpanOutcome>().notNull(),
    spans: bigint('spans', { mode: 'number' }).notNull(),
  },
  (table) => [
    primaryKey({ name: 'span_ingest_totals_pkey', columns: [table.service, table.outcome] }),
    check('span_ingest_totals_outcome_known', outcomeKnown(table.outcome)),
  ],
);

export interface SpanShapeSample {
  name: string;
  operation?: string;
  /** The span's attribute keys in the call conventions' namespaces, sorted (at most 30). */
  keys: string[];
}

/**
 * An agent's runs as its emitter reported them (an `invoke_agent`, an AI SDK `ai.generateText`, an OpenInference
 * AGENT or CHAIN, an OpenLLMetry workflow): runs of an agent, not attempts of a step. The calls under a run are
 * the attempts; the run's own failure is theirs, never counted a second time. Kept as long as the raw attempts.
 */
export const agentRuns = pgTable(
  'agent_runs',
  {
    traceId: text('trace_id').notNull(),
    spanId: text('span_id').notNull(),
    agent: text('agent').notNull(),
    /** The span's name, made a plain name. */
    name: text('name').notNull(),
    /** Which convention said it is a run (`invoke_agent`, `ai.generateText`, `openinference.agent`, ...). */
    convention: text('convention').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    finishedAt: timestamp('finished_at', { withTimezone: true }).notNull(),
    outcome: text('outcome').$type<'succeeded' | 'failed'>().notNull(),
    errorText: text('error_text'),
  },
  (table) => [
    primaryKey({ name: 'agent_runs_pkey', columns: [table.traceId, table.spanId] }),
    index('agent_runs_started_at_idx').on(table.startedAt),
    index('agent_runs_agent_started_at_idx').on(table.agent, table.startedAt),
    check('agent_runs_outcome_known', sql`${table.outcome} in ('succeeded', 'failed')`),
    check('agent_runs_finished_after_started', sql`${table.finishedAt} >= ${table.startedAt}`),
  ],
);
