import fs from 'node:fs';
import path from 'node:path';
import type { AttributeValue } from '../../lib/traces/attribute-values';
import type { ExportedSpan } from '../../lib/traces/exported-span';

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
