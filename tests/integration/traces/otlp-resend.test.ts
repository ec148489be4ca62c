import { context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiToken } from '../../../packages/engine/src/core';
import { priceCall } from '../../../packages/engine/src/core/pricing/price-call';
import { type HoldfastServer, startServerOn } from '../../support/holdfast-server';
import { useTestDatabase } from '../../support/test-database';
import { admin } from '../../support/actors';
import { startAgentRun } from '../../support/agent-run-span';

/**
 * A model call's HTTP tries as its attempts (`http.request.resend_count`): a `chat` span whose HTTP
 * client children are a 503, a 429 and a 200 is three attempts of its step, each classed by its own
 * status, the call's cost on the last. Spans made by the official OpenTelemetry SDK and exported by
 * its OTLP/HTTP exporters to a running Holdfast (the production server), in one batch or in two, in
 * either order, sent twice, and at once.
 */
const database = useTestDatabase();
let server: HoldfastServer;
const tokens = { traces: '', otherAgent: '' };

beforeAll(async () => {
  const ctx = { db: database.db, actor: admin };
  tokens.traces = (await createApiToken(ctx, { name: 'exporter', scopes: ['traces'] })).token;
  tokens.otherAgent = (
    await createApiToken(ctx, { name: 'other exporter', scopes: ['traces'], allowedAgents: ['someone-else'] })
  ).token;
  server = await startServerOn(database);
}, 300_000);

afterAll(async () => {
  await server?.stop();
});

function exporterFor(format: 'protobuf' | 'json', token = tokens.traces): SpanExporter {
  // A generous timeout: on a loaded machine a slow answer must not count as a failed export.
  const options = {
    url: `${server.baseUrl}/v1/traces`,
    headers: { authorization: `Bearer ${token}` },
    timeoutMillis: 60_000,
  };
  return format === 'protobuf' ? new ProtobufExporter(options) : new JsonExporter(options);
}

/** Exports these spans as one batch, as a batch span processor would; fails the test if the export fails. */
async function exportBatch(spans: ReadableSpan[], format: 'protobuf' | 'json' = 'protobuf', token?: string) {
  const exporter = exporterFor(format, token);
  try {
    const result = await new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(spans, resolve));
    expect(result.error).toBeUndefined();
    expect(result.code).toBe(0); // ExportResultCode.SUCCESS
  } finally {
    await exporter.shutdown();
  }
}

const MODEL = 'gpt-4o';
const TOKENS = { input: 1_000, output: 200 };

/**
 * One agent run: an `invoke_agent` span, under it a `chat draft` call whose client sent its request
 * three times (503, then 429, then 200, as an HTTP client instrumentation records them, with
 * `http.request.resend_count` on the re-sends), the call's tokens on the chat span. The HTTP spans
 * end first, then the call, then the run.
 */
function runWithTries(agent: string) {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': agent }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
  });
  const tracer = provider.getTracer('resend-test');
  const base = Date.now() - 60_000;
  const { run, inRun } = startAgentRun(tracer, 'drafter', base);
  const chat = tracer.startSpan(
    `chat ${MODEL}`,
    {
      kind: SpanKind.CLIENT,
      startTime: base + 100,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': MODEL,
        'gen_ai.usage.input_tokens': TOKENS.input,
        'gen_ai.usage.output_tokens': TOKENS.output,
      },
    },
    inRun,
  );
  const inChat = trace.setSpan(context.active(), chat);
  const tries: Span[] = [];
  for (const [index, status, message] of [
    [0, 503, 'Service Unavailable'],
    [1, 429, 'Too Many Requests'],
    [2, 200, ''],
  ] as const) {
    const start = base + 200 + index * 1_000;
    const send = tracer.startSpan(
      'POST',
      {
        kind: SpanKind.CLIENT,
        startTime: start,
        attributes: {
          'http.request.method': 'POST',
          'url.full': 'https://api.openai.com/v1/chat/completions',
          'server.address': 'api.openai.com',
          'http.response.status_code': status,
          // The conventions set it on re-sends only.
          ...(index > 0 ? { 'http.request.resend_count': index } : {}),
        },
      },
      inChat,
    );
    if (status >= 400) {
      send.setAttribute('error.type', String(status));
      send.setStatus({ code: SpanStatusCode.ERROR, message });
    }
    send.end(start + 600);
    tries.push(send);
  }
  chat.end(base + 3_000);
  run.end(base + 3_500);
  const spans = memory.getFinishedSpans();
  const http = spans.filter((span) => span.name === 'POST');
  return { http, call: spans.filter((span) => span.name !== 'POST'), all: spans, startedAt: base + 100 };
}

async function attemptsOf(agent: string, step = `chat_${MODEL}`) {
  return database.sql<
    {
      attempt_number: number;
      outcome: string;
      error_class: string | null;
      error_text: string | null;
      cost_micros: string;
      cost_source: string;
      idempotency_key: string;
    }[]
  >`select attempt_number, outcome, error_class, error_text, cost_micros, cost_source, idempotency_key
    from attempts where agent = ${agent} and step = ${step} order by attempt_number`;
}

/** The three tries as attempts 1..3: each classed by its status, the call's priced cost on the answer only. */
function expectedTries(run: ReturnType<typeof runWithTries>) {
  const keyOf = (span: ReadableSpan) => `span:${span.spanContext().traceId}/${span.spanContext().spanId}`;
  const answered = priceCall({
    usage: { inputTokens: TOKENS.input, outputTokens: TOKENS.output },
    model: MODEL,
    provider: 'openai',
    at: new Date(run.startedAt),
  });
  expect(answered).toEqual({ costMicros: 4_500, source: 'priced' }); // 2.50 $ in, 10 $ out per million tokens
  return [
    {
      attempt_number: 1,
      outcome: 'failed',
      error_class: 'transient',
      error_text: 'Service Unavailable',
      cost_micros: '0',
      cost_source: 'none',
      idempotency_key: keyOf(run.http[0]!),
    },
    // Refused before any generation: 0 by the failed-call rule.
    {
      attempt_number: 2,
      outcome: 'failed',
      error_class: 'rate_limited',
      error_text: 'Too Many Requests',
      cost_micros: '0',
      cost_source: 'rule',
      idempotency_key: keyOf(run.http[1]!),
    },
    {
      attempt_number: 3,
      outcome: 'succeeded',
      error_class: null,
      error_text: null,
      cost_micros: String(answered.costMicros),
      cost_source: answered.source,
      idempotency_key: keyOf(run.http[2]!),
    },
  ];
}

async function runsOf(agent: string) {
  const rows = await database.sql<{ name: string }[]>`select name from agent_runs where agent = ${agent}`;
  return rows.map((row) => row.name);
}

async function storedSpanCount(run: ReturnType<typeof runWithTries>) {
  const [row] = await database.sql<{ n: number }[]>`
    select count(*)::int as n from trace_spans where trace_id = ${run.all[0]!.spanContext().traceId}`;
  return row!.n;
}

describe('HTTP tries of a model call (http.request.resend_count)', () => {
  it.each(['protobuf', 'json'] as const)(
    'makes a chat span with a 503, a 429 and a 200 under it three attempts, in one %s batch, and a redelivery adds nothing',
    async (format) => {
      const agent = `resend-one-${format}`;
      const run = runWithTries(agent);
      await exportBatch(run.all, format);
      expect(await attemptsOf(agent)).toEqual(expectedTries(run));
      // The run is a run of its agent, no step.
      expect(await attemptsOf(agent, 'invoke_agent_drafter')).toEqual([]);
      expect(await runsOf(agent)).toEqual(['invoke_agent_drafter']);

      // The exporter sent the batch again: nothing new, nothing renumbered.
      const spans = await storedSpanCount(run);
      expect(spans).toBe(4);
      await exportBatch(run.all, format);
      expect(await storedSpanCount(run)).toBe(spans);
      expect(await attemptsOf(agent)).toEqual(expectedTries(run));
      expect(await runsOf(agent)).toEqual(['invoke_agent_drafter']);
      const [all] = await database.sql<{ n: number }[]>`select count(*)::int as n from attempts where agent = ${agent}`;
      expect(all!.n).toBe(3);
    },
  );

  it('numbers the tries the same when they come in a batch before their call (as they end first)', async () => {
    const agent = 'resend-children-first';
    const run = runWithTries(agent);
    await exportBatch(run.http);
    // Tries wait for their call: nothing is an attempt yet.
    expect(await attemptsOf(agent)).toEqual([]);
    await exportBatch(run.http); // sent again while waiting: still nothing
    await exportBatch(run.call);
    expect(await attemptsOf(agent)).toEqual(expectedTries(run));
    await exportBatch(run.call);
    await exportBatch(run.http);
    expect(await attemptsOf(agent)).toEqual(expectedTries(run));
  });

  it('numbers the tries the same when they come in a batch after their call, which was one attempt until then', async () => {
    const agent = 'resend-call-first';
    const run = runWithTries(agent);
    await exportBatch(run.call);
    const alone = await attemptsOf(agent);
    expect(alone.map((row) => [row.attempt_number, row.outcome, row.cost_micros])).toEqual([[1, 'succeeded', '4500']]);
    await exportBatch(run.http);
    expect(await attemptsOf(agent)).toEqual(expectedTries(run));
    await exportBatch(run.http);
    expect(await attemptsOf(agent)).toEqual(expectedTries(run));
  });

  it('numbers every call exactly when its tries and the call itself are exported at the same moment', async () => {
    const agent = 'resend-race';
    const runs = Array.from({ length: 8 }, () => runWithTries(agent));
    // Each call's two batches at once, all calls side by side: whichever batch of a call goes second sees the other.
    await Promise.all(runs.flatMap((run) => [exportBatch(run.http), exportBatch(run.call)]));
    const rows = await database.sql<{ task_id: string; attempt_number: number; idempotency_key: string }[]>`
      select task_id, attempt_number, idempotency_key from attempts
      where agent = ${agent} and step = ${`chat_${MODEL}`} order by task_id, attempt_number`;
    expect(rows).toHaveLength(runs.length * 3);
    for (const run of runs) {
      const expected = expectedTries(run).map((row) => row.idempotency_key);
      const task = rows.filter((row) => expected.includes(row.idempotency_key));
      expect(task.map((row) => [row.attempt_number, row.idempotency_key])).toEqual(
        expected.map((key, index) => [index + 1, key]),
      );
    }
  });

  it("attaches no tries sent by a token that may not act for the call's agent", async () => {
    const agent = 'resend-guarded';
    const run = runWithTries(agent);
    await exportBatch(run.call);
    // Another agent's exporter names the call as the parent of its HTTP spans: they are kept, never its tries.
    await exportBatch(run.http, 'protobuf', tokens.otherAgent);
    const rows = await attemptsOf(agent);
    expect(rows.map((row) => [row.attempt_number, row.outcome, row.cost_micros])).toEqual([[1, 'succeeded', '4500']]);
    expect(rows[0]!.idempotency_key).toBe(
      `span:${run.call[0]!.spanContext().traceId}/${run.call.find((span) => span.name.startsWith('chat'))!.spanContext().spanId}`,
    );
  });
});
