import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { OTLP_LIMITS, RequestPastLimitsError } from '../../../packages/engine/src/traces/otlp-limits';
import { readProtobufRequest } from '../../../packages/engine/src/traces/otlp-protobuf-reader';

/** Bodies encoded by protobufjs from the official .proto files, as the OpenTelemetry SDK's exporter encodes them. */
const requireCommonJs = createRequire(import.meta.url);
const ExportTraceServiceRequest = requireCommonJs('otlp-proto-root/build/src/generated/root').opentelemetry.proto
  .collector.trace.v1.ExportTraceServiceRequest as {
  fromObject(object: unknown): unknown;
  encode(message: unknown): { finish(): Uint8Array };
};

const TRACE = Buffer.alloc(16, 0xab);
const spanId = (n: number) => Buffer.from(n.toString(16).padStart(16, '0'), 'hex');
const kv = (key: string, value: Record<string, unknown>) => ({ key, value });

function body(spans: Record<string, unknown>[], resourceAttributes = [kv('service.name', { stringValue: 'svc' })]) {
  const request = { resourceSpans: [{ resource: { attributes: resourceAttributes }, scopeSpans: [{ spans }] }] };
  return Buffer.from(ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(request)).finish());
}

function span(n: number, extra: Record<string, unknown> = {}) {
  return {
    traceId: TRACE,
    spanId: spanId(n),
    name: `span ${n}`,
    kind: 3,
    startTimeUnixNano: '1700000000000000000',
    endTimeUnixNano: '1700000000500000000',
    ...extra,
  };
}

describe('readProtobufRequest', () => {
  it('reads every field Holdfast maps, as the protobufjs decoding did', async () => {
    const { spans, notes } = await readProtobufRequest(
      body([
        span(1, {
          parentSpanId: spanId(9),
          attributes: [
            kv('gen_ai.operation.name', { stringValue: 'chat' }),
            kv('count', { intValue: 42 }),
            kv('big', { intValue: '9007199254740993' }),
            kv('negative', { intValue: -5 }),
            kv('ratio', { doubleValue: 0.5 }),
            kv('flag', { boolValue: true }),
            kv('list', { arrayValue: { values: [{ stringValue: 'a' }, { intValue: 2 }] } }),
            kv('raw', { bytesValue: Buffer.from('x') }),
          ],
          events: [
            {
              name: 'exception',
              attributes: [
                kv('exception.type', { stringValue: 'AI_APICallError' }),
                kv('exception.message', { stringValue: 'boom' }),
                kv('exception.stacktrace', { stringValue: 'at somewhere' }),
              ],
            },
            {
              name: 'log',
              attributes: [
                kv('exception.message', { stringValue: 'not an exception' }),
                kv('exception.type', { stringValue: 'NotAnException' }),
              ],
            },
          ],
          status: { code: 2, message: 'failed' },
        }),
      ]),
    );
    expect(notes).toEqual({ refused: [], cutTexts: 0 });
    expect(spans).toHaveLength(1);
    const [read] = spans;
    expect(read).toMatchObject({
      traceId: TRACE.toString('hex'),
      spanId: spanId(1).toString('hex'),
      parentSpanId: spanId(9).toString('hex'),
      name: 'span 1',
      kind: 3,
      startNanos: 1700000000000000000n,
      endNanos: 1700000000500000000n,
      statusCode: 2,
      statusMessage: 'failed',
      exceptionMessages: ['boom'],
      exceptionTypes: ['AI_APICallError'],
    });
    expect(Object.fromEntries(read!.attributes)).toEqual({
      'gen_ai.operation.name': 'chat',
      count: 42,
      big: '9007199254740993',
      negative: -5,
      ratio: 0.5,
      flag: true,
      list: JSON.stringify({ values: [{ stringValue: 'a' }, { intValue: '2' }] }),
    });
    expect(Object.fromEntries(read!.resource)).toEqual({ 'service.name': 'svc' });
  });

  it('takes a span at every per-span limit, and refuses one past each, by itself', async () => {
    const attributes = (count: number) => Array.from({ length: count }, (_, i) => kv(`a${i}`, { stringValue: '' }));
    const events = (count: number, attributeCount = 1) =>
      Array.from({ length: count }, () => ({ name: 'log', attributes: attributes(attributeCount) }));
    const nested = (count: number) => ({
      arrayValue: { values: Array.from({ length: count }, () => ({ boolValue: true })) },
    });
    const deep = (depth: number): Record<string, unknown> =>
      depth === 0 ? { stringValue: 'leaf' } : { arrayValue: { values: [deep(depth - 1)] } };
    const { spans, notes } = await readProtobufRequest(
      body([
        span(1, { attributes: attributes(OTLP_LIMITS.attributesPerSpan) }),
        span(2, { attributes: attributes(OTLP_LIMITS.attributesPerSpan + 1) }),
        span(3, { events: events(OTLP_LIMITS.eventsPerSpan, OTLP_LIMITS.attributesPerEvent) }),
        span(4, { events: events(OTLP_LIMITS.eventsPerSpan + 1) }),
        span(5, { events: events(1, OTLP_LIMITS.attributesPerEvent + 1) }),
        span(6, { attributes: [kv('list', nested(OTLP_LIMITS.nestedValues))] }),
        span(7, { attributes: [kv('list', nested(OTLP_LIMITS.nestedValues + 1))] }),
        // A string at the bottom of `depth` arrays: the arrays are the nesting.
        span(8, { attributes: [kv('deep', deep(OTLP_LIMITS.nestedDepth))] }),
        span(9, { attributes: [kv('deep', deep(OTLP_LIMITS.nestedDepth + 1))] }),
      ]),
    );
    expect(spans.map((read) => read.name)).toEqual(['span 1', 'span 3', 'span 6', 'span 8']);
    expect(notes.refused).toEqual([
      { spanId: spanId(2).toString('hex'), reason: 'a span has more than 128 attributes' },
      { spanId: spanId(4).toString('hex'), reason: 'a span has more than 128 events' },
      { spanId: spanId(5).toString('hex'), reason: 'an event has more than 128 attributes' },
      { spanId: spanId(7).toString('hex'), reason: 'an attribute value holds more than 128 values' },
      { spanId: spanId(9).toString('hex'), reason: 'an attribute value nests arrays or kvlists more than 4 deep' },
    ]);
  });

  it('cuts a text past the value limit to its first bytes, and counts it', async () => {
    const long = 'é'.repeat(OTLP_LIMITS.valueBytes); // two bytes each
    const { spans, notes } = await readProtobufRequest(
      body([span(1, { attributes: [kv('prompt', { stringValue: long }), kv('short', { stringValue: 'ok' })] })]),
    );
    expect(notes.cutTexts).toBe(1);
    // Holdfast keeps 20,000 characters of any attribute text.
    const prompt = spans[0]!.attributes.get('prompt') as string;
    expect(prompt.length).toBe(20_000);
    expect(prompt === 'é'.repeat(20_000)).toBe(true);
    expect(spans[0]!.attributes.get('short')).toBe('ok');
  });

  it('refuses a request of more spans than the limit before reading any (413)', async () => {
    const spans = Array.from({ length: OTLP_LIMITS.spansPerRequest + 1 }, (_, i) => span(i + 1));
    await expect(readProtobufRequest(body(spans))).rejects.toBeInstanceOf(RequestPastLimitsError);
    const atLimit = await readProtobufRequest(body(spans.slice(0, OTLP_LIMITS.spansPerRequest)));
    expect(atLimit.spans).toHaveLength(OTLP_LIMITS.spansPerRequest);
  });

  it("refuses every span of a resource past the resource's attribute limit", async () => {
    const many = Array.from({ length: OTLP_LIMITS.attributesPerResource + 1 }, (_, i) => kv(`r${i}`, { intValue: i }));
    const { spans, notes } = await readProtobufRequest(body([span(1), span(2)], many));
    expect(spans).toEqual([]);
    expect(notes.refused.map((refused) => refused.reason)).toEqual([
      'its resource has more than 128 attributes',
      'its resource has more than 128 attributes',
    ]);
  });
});
