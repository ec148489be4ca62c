import { type SQL, sql } from 'drizzle-orm';
import { type ArrayElement, arrayParam } from '../core/kernel/sql-arrays';
import type { SpanAttempt } from './span-to-attempt';
import type { SpanTry } from './span-to-try';

/** A column of the batch: its name and type in SQL, and its value on a call and on a try (null: none). */
type SpanColumn = readonly [
  name: string,
  type: string,
  ofCall: (call: SpanAttempt) => ArrayElement,
  ofTry: (spanTry: SpanTry) => ArrayElement,
];

const none = () => null;

/** The batch's columns, as trace_spans stores them (times as epoch milliseconds: see storeSpans). */
const SPAN_COLUMNS: readonly SpanColumn[] = [
  ['kind', 'text', () => 'call', () => 'http_try'],
  ['trace_id', 'text', (c) => c.traceId, (t) => t.traceId],
  ['span_id', 'text', (c) => c.spanId, (t) => t.spanId],
  ['parent_span_id', 'text', (c) => c.parentSpanId, (t) => t.parentSpanId],
  ['task_id', 'text', (c) => c.taskId, none],
  ['agent', 'text', (c) => c.agent, none],
  ['step', 'text', (c) => c.step, none],
  ['model_call', 'boolean', (c) => c.modelCall, () => false],
  ['started_ms', 'bigint', (c) => c.startedAtMs, (t) => t.startedAtMs],
  ['finished_ms', 'bigint', (c) => c.finishedAtMs, (t) => t.finishedAtMs],
  ['stated_attempt', 'int', (c) => c.statedAttempt, none],
  ['outcome', 'text', (c) => c.outcome, (t) => t.outcome],
  ['error_class', 'error_class', (c) => c.errorClass, (t) => t.errorClass],
  ['error_text', 'text', (c) => c.errorText, (t) => t.errorText],
  ['cost_micros', 'bigint', (c) => c.costMicros, (t) => t.costMicros],
  ['cost_source', 'text', (c) => c.costSource, (t) => t.costSource],
  ['model', 'text', (c) => c.model, none],
  ['http_status', 'int', none, (t) => t.httpStatus],
  ['resend_count', 'int', none, (t) => t.resendCount],
];

/** The batch's calls and tries as one relation `b(kind, trace_id, ...)`: one typed array per column, unnested. */
export function spanBatchRelation(calls: readonly SpanAttempt[], tries: readonly SpanTry[]): SQL {
  const arrays = SPAN_COLUMNS.map(([, type, ofCall, ofTry]) =>
    arrayParam([...calls.map(ofCall), ...tries.map(ofTry)], type),
  );
  const names = SPAN_COLUMNS.map(([name]) => name).join(', ');
  return sql`unnest(${sql.join(arrays, sql`, `)}) as b(${sql.raw(names)})`;
}
