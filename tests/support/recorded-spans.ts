import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AttributeValue } from '../../packages/engine/src/traces/attribute-values';
import type { ExportedSpan } from '../../packages/engine/src/traces/exported-span';

/**
 * The spans real instrumentations emitted against a fake provider (tests/fixtures/otel-emitters: the recorder,
 * and what each emitter showed), read as the receiver reads a request: one fixture is one scenario of one emitter.
 */
const FIXTURES = path.join(import.meta.dirname, '../fixtures/otel-emitters');

interface RecordedSpan {
  name: string;
  kind: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  start: { unixNano: string };
  end: { unixNano: string };
  status: { code: 'UNSET' | 'OK' | 'ERROR'; message?: string };
  attributes: Record<string, AttributeValue>;
  events: { name: string; attributes?: Record<string, AttributeValue> }[];
  resource: Record<string, AttributeValue>;
}

export interface RecordedScenario {
  emitter: string;
  scenario: string;
  spans: ExportedSpan[];
  /** What the provider answered, request by request. */
  providerLog: { status: number }[];
}

const KINDS: Record<string, number> = { INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 };
const STATUS: Record<string, number> = { UNSET: 0, OK: 1, ERROR: 2 };

export function recordedScenario(emitter: string, scenario: string): RecordedScenario {
  const recorded = JSON.parse(fs.readFileSync(path.join(FIXTURES, emitter, `${scenario}.json`), 'utf8')) as {
    spans: RecordedSpan[];
    providerLog: { status: number }[];
  };
  const texts = (span: RecordedSpan, key: string) =>
    span.events
      .filter((event) => event.name === 'exception')
      .map((event) => event.attributes?.[key])
      .filter((value): value is string => typeof value === 'string');
  const spans = recorded.spans.map(
    (span): ExportedSpan => ({
      traceId: span.traceId,
      spanId: span.spanId,
      parentSpanId: span.parentSpanId,
      name: span.name,
      kind: KINDS[span.kind] ?? 0,
      startNanos: BigInt(span.start.unixNano),
      endNanos: BigInt(span.end.unixNano),
      statusCode: STATUS[span.status.code] ?? 0,
      statusMessage: span.status.message ?? '',
      attributes: new Map(Object.entries(span.attributes)),
      resource: new Map(Object.entries(span.resource)),
      exceptionMessages: texts(span, 'exception.message'),
      exceptionTypes: texts(span, 'exception.type'),
    }),
  );
  return { emitter, scenario, spans, providerLog: recorded.providerLog };
}

type OtlpValue =
  | { stringValue: string }
  | { intValue: string }
  | { doubleValue: number }
  | { boolValue: boolean }
  | { arrayValue: { values: OtlpValue[] } };

function otlpValueOf(value: unknown): OtlpValue {
  if (Array.isArray(value)) return { arrayValue: { values: value.map(otlpValueOf) } };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'number') return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  return { stringValue: String(value) };
}

const keyValues = (attributes: Record<string, unknown>) =>
  Object.entries(attributes).map(([key, value]) => ({ key, value: otlpValueOf(value) }));

/**
 * A recorded scenario as the OTLP/JSON export its emitter would send now, as agent `agent` (its `service.name`):
 * every span moved by one offset so the last ends a minute ago (within the kept days, its order and durations
 * as recorded), with new trace ids, so that each run of a test exports spans of its own.
 */
export function exportOfRecording(emitter: string, scenario: string, agent: string, now = Date.now()): string {
  const recorded = JSON.parse(fs.readFileSync(path.join(FIXTURES, emitter, `${scenario}.json`), 'utf8')) as {
    spans: RecordedSpan[];
  };
  const lastEnd = recorded.spans.reduce((last, span) => {
    const end = BigInt(span.end.unixNano);
    return end > last ? end : last;
  }, 0n);
  const shift = BigInt(now - 60_000) * 1_000_000n - lastEnd;
  const traces = new Map<string, string>();
  const traceOf = (id: string) => {
    if (!traces.has(id)) traces.set(id, crypto.randomUUID().replaceAll('-', ''));
    return traces.get(id)!;
  };
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: keyValues({ 'service.name': agent }) },
        scopeSpans: [
          {
            spans: recorded.spans.map((span) => ({
              traceId: traceOf(span.traceId),
              spanId: span.spanId,
              ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
              name: span.name,
              kind: KINDS[span.kind] ?? 0,
              startTimeUnixNano: String(BigInt(span.start.unixNano) + shift),
              endTimeUnixNano: String(BigInt(span.end.unixNano) + shift),
              status: { code: STATUS[span.status.code] ?? 0, message: span.status.message ?? '' },
              attributes: keyValues(span.attributes),
              events: span.events.map((event) => ({ name: event.name, attributes: keyValues(event.attributes ?? {}) })),
            })),
          },
        ],
      },
    ],
  });
}
