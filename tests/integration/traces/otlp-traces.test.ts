import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { type Context, SpanStatusCode } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SimpleSpanProcessor, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiToken, recordAttempt } from '../../../packages/engine/src/core';
import { dropAttemptPartitionsBefore } from '../../../packages/engine/src/db/attempt-partitions';
import { startServerOn, type HoldfastServer } from '../../support/holdfast-server';
import { useTestDatabase } from '../../support/test-database';
import { admin } from '../../support/actors';
import { startAgentRun } from '../../support/agent-run-span';

/**
 * The official OpenTelemetry JS SDK exporting to a running Holdfast (the
 * production server) with both OTLP/HTTP exporters, protobuf and JSON: the
 * spans of a scripted agent become exactly the attempts they stand for.
 */
const database = useTestDatabase();
let server: HoldfastServer;
const tokens = { traces: '', limited: '', ingestOnly: '' };

beforeAll(async () => {
  const ctx = { db: database.db, actor: admin };
  tokens.traces = (await createApiToken(ctx, { name: 'exporter', scopes: ['traces'] })).token;
  tokens.limited = (
    await createApiToken(ctx, { name: 'research exporter', scopes: ['traces'], allowedAgents: ['research'] })
  ).token;
  tokens.ingestOnly = (await createApiToken(ctx, { name: 'reader', scopes: ['read'] })).token;
  server = await startServerOn(database);
}, 300_000);

afterAll(async () => {
  await server?.stop();
});

type Format = 'protobuf' | 'json';
function exporterFor(format: Format, token = tokens.traces): SpanExporter {
  const options = { url: `${server.baseUrl}/v1/traces`, headers: { authorization: `Bearer ${token}` } };
  return format === 'protobuf' ? new ProtobufExporter(options) : new JsonExporter(options);
}

/** A tracer whose every ended span is exported at once, as a service named `service.name` would. */
function tracerFor(exporter: SpanExporter, serviceName: string) {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  return { tracer: provider.getTracer('scripted-agent'), provider };
}

/** A span that starts and ends at given moments, under `parent`. */
function recordSpan(
  tracer: ReturnType<typeof tracerFor>['tracer'],
  parent: Context,
  name: string,
  attributes: Record<string, string | number>,
  at: { start: number; end: number },
  error?: { message: string; type: string },
) {
  const span = tracer.startSpan(name, { attributes, startTime: at.start }, parent);
  if (error) {
    span.setAttribute('error.type', error.type);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  }
  span.end(at.end);
  return span;
}

async function attemptsOfAgent(agent: string) {
  return database.sql<
    {
      task_id: string;
      step: string;
      attempt_number: number;
      outcome: string;
      error_class: string | null;
      cost_micros: string;
      cost_source: string | null;
    }[]
  >`select task_id, step, attempt_number, outcome, error_class, cost_micros, cost_source from attempts
    where agent = ${agent} order by step, attempt_number`;
}

describe.each(['protobuf', 'json'] as const)('OTLP/HTTP %s export from the OpenTelemetry SDK', (format) => {
  it('turns a scripted agent run into its attempts: retries numbered, errors classed, costs kept', async () => {
    const agent = `scripted-${format}`;
    const { tracer, provider } = tracerFor(exporterFor(format), agent);
    const base = Date.now() - 60_000;
    const at = (offset: number, length = 500) => ({ start: base + offset, end: base + offset + length });
    const { run, inRun } = startAgentRun(tracer, 'scripted', base);
    const chat = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o',
    };
    const tokens = (input: number, output: number) => ({
      'gen_ai.usage.input_tokens': input,
      'gen_ai.usage.output_tokens': output,
    });
    // plan: one chat call, first time right, its cost stated: 0.002 $.
    recordSpan(tracer, inRun, 'chat plan', { ...chat, 'gen_ai.usage.cost.amount': 0.002 }, at(0));
    // draft: refused 429 (the client counted its prompt anyway), then a 503 cut the stream after 50 tokens, then
    // answered: three attempts of one call. gpt-4o costs 2.50 $ in and 10 $ out a million tokens in the pinned table.
    recordSpan(tracer, inRun, 'chat draft', { ...chat, ...tokens(1_000, 0) }, at(1_000), {
      message: 'Too Many Requests',
      type: '429',
    });
    recordSpan(tracer, inRun, 'chat draft', { ...chat, ...tokens(1_000, 50) }, at(2_000), {
      message: 'Service Unavailable',
      type: '503',
    });
    recordSpan(tracer, inRun, 'chat draft', { ...chat, ...tokens(1_000, 200) }, at(3_000));
    // lookup: a tool that fails permanently (a 404 from its API).
    recordSpan(
      tracer,
      inRun,
      'execute_tool lookup',
      { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup_order', 'gen_ai.tool.call.id': 'call_1' },
      at(4_000),
      { message: 'order 42 not found', type: '404' },
    );
    // Not a GenAI operation: no attempt.
    recordSpan(tracer, inRun, 'GET /orders/42', { 'http.request.method': 'GET' }, at(4_100, 50));
    run.end(base + 5_000);
    await provider.forceFlush();
    await provider.shutdown();

    const rows = await attemptsOfAgent(agent);
    const summary = rows.map((row) => ({
      step: row.step,
      attempt: row.attempt_number,
      outcome: row.outcome,
      errorClass: row.error_class,
      costMicros: Number(row.cost_micros),
      source: row.cost_source,
    }));
    expect(summary).toEqual([
      { step: 'chat_draft', attempt: 1, outcome: 'failed', errorClass: 'rate_limited', costMicros: 0, source: 'rule' },
      {
        step: 'chat_draft',
        attempt: 2,
        outcome: 'failed',
        errorClass: 'transient',
        costMicros: 3_000,
        source: 'priced',
      },
      { step: 'chat_draft', attempt: 3, outcome: 'succeeded', errorClass: null, costMicros: 4_500, source: 'priced' },
      { step: 'chat_plan', attempt: 1, outcome: 'succeeded', errorClass: null, costMicros: 2_000, source: 'reported' },
      { step: 'lookup_order', attempt: 1, outcome: 'failed', errorClass: 'permanent', costMicros: 0, source: 'none' },
    ]);
    // The run's model calls are steps of one task (the trace, under the run's span), a tool call is a task of its
    // own under it (its call id: calls of one tool are told apart by it). The run is a run of its agent, no step.
    const taskOf = (step: string) => rows.find((row) => row.step === step)!.task_id;
    expect(taskOf('chat_plan')).toMatch(/^[0-9a-f]{32}\/[0-9a-f]{16}$/);
    expect(new Set(rows.filter((row) => row.step === 'chat_draft').map((row) => row.task_id))).toEqual(
      new Set([taskOf('chat_plan')]),
    );
    expect(taskOf('lookup_order')).toBe(`${taskOf('chat_plan')}/call_1`);
    const runs = await database.sql<{ name: string; convention: string; outcome: string }[]>`
      select name, convention, outcome from agent_runs where agent = ${agent}`;
    expect(runs).toEqual([{ name: 'invoke_agent_scripted', convention: 'invoke_agent', outcome: 'succeeded' }]);
  });
});

/** One span as OTLP JSON, for requests made by hand. */
function jsonSpan(traceId: string, parentSpanId: string, step: string, startMs: number, extra: object = {}) {
  const spanId = randomBytes(8).toString('hex');
  return {
    traceId,
    spanId,
    parentSpanId,
    name: step,
    startTimeUnixNano: String(BigInt(startMs) * 1_000_000n),
    endTimeUnixNano: String(BigInt(startMs + 100) * 1_000_000n),
    attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'chat' } }],
    ...extra,
  };
}
/** A call that failed (a 503 from its provider): a sibling after it is its retry. */
const failedStatus = {
  attributes: [
    { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
    { key: 'http.response.status_code', value: { intValue: '503' } },
  ],
  status: { code: 2, message: '503 Service Unavailable' },
};
const requestOf = (agent: string, spans: object[]) => ({
  resourceSpans: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: agent } }] },
      scopeSpans: [{ spans }],
    },
  ],
});
async function post(body: string | Buffer, headers: Record<string, string> = {}, token = tokens.traces) {
  const response = await fetch(`${server.baseUrl}/v1/traces`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

/** A JSON export with a Host header of our choosing (fetch sets Host itself). */
function postWithHost(body: string, host: string): Promise<{ status: number; body: string }> {
  const url = new URL(`${server.baseUrl}/v1/traces`);
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        headers: { host, authorization: `Bearer ${tokens.traces}`, 'content-type': 'application/json' },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

describe('the traces receiver', () => {
  it('ingests a batch sent twice once, and numbers siblings exactly when they come in reverse, over two batches', async () => {
    const agent = `reorder-${randomUUID().slice(0, 8)}`;
    const traceId = randomBytes(16).toString('hex');
    const parent = randomBytes(8).toString('hex');
    const start = Date.now() - 30_000;
    // Two failed tries and the one that succeeded: one operation, its attempts 1 to 3.
    const [first, second, third] = [0, 1_000, 2_000].map((offset, index) =>
      jsonSpan(traceId, parent, 'chat', start + offset, index < 2 ? failedStatus : {}),
    );
    const later = JSON.stringify(requestOf(agent, [third!, second!]));
    expect((await post(later)).status).toBe(200);
    expect((await post(later)).status).toBe(200); // the exporter retried: nothing new
    expect((await attemptsOfAgent(agent)).map((row) => row.attempt_number)).toEqual([1, 2]);

    const earliest = gzipSync(JSON.stringify(requestOf(agent, [first!])));
    expect((await post(earliest, { 'content-encoding': 'gzip' })).status).toBe(200);
    const rows = await database.sql<{ attempt_number: number; idempotency_key: string }[]>`
      select attempt_number, idempotency_key from attempts where agent = ${agent} order by attempt_number`;
    expect(rows).toEqual([
      { attempt_number: 1, idempotency_key: `span:${traceId}/${first!.spanId}` },
      { attempt_number: 2, idempotency_key: `span:${traceId}/${second!.spanId}` },
      { attempt_number: 3, idempotency_key: `span:${traceId}/${third!.spanId}` },
    ]);
  });

  it('numbers 12 siblings exactly when 12 exporters send one each at once, in shuffled order', async () => {
    const agent = `race-${randomUUID().slice(0, 8)}`;
    const traceId = randomBytes(16).toString('hex');
    const parent = randomBytes(8).toString('hex');
    const start = Date.now() - 60_000;
    // Eleven failed tries and the one that succeeded: one operation, its attempts 1 to 12.
    const siblings = Array.from({ length: 12 }, (_, index) =>
      jsonSpan(traceId, parent, 'chat', start + index * 1_000, index < 11 ? failedStatus : {}),
    );
    const shuffled = [...siblings].sort(() => Math.random() - 0.5);
    const answers = await Promise.all(shuffled.map((span) => post(JSON.stringify(requestOf(agent, [span])))));
    expect(answers.map((answer) => answer.status)).toEqual(Array(12).fill(200));
    const rows = await database.sql<{ attempt_number: number; idempotency_key: string }[]>`
      select attempt_number, idempotency_key from attempts where agent = ${agent} order by attempt_number`;
    expect(rows).toEqual(
      siblings.map((span, index) => ({ attempt_number: index + 1, idempotency_key: `span:${traceId}/${span.spanId}` })),
    );
  });

  it('leaves an attempt number the library holds to it, and takes the rest of the batch (no error)', async () => {
    const agent = `shared-${randomUUID().slice(0, 8)}`;
    const task = `order-${randomUUID()}`;
    const start = Date.now() - 40_000;
    // The agent reported attempt 1 of this task's step itself; its spans then name the same task and step.
    await recordAttempt(
      { db: database.db },
      {
        taskId: task,
        agent,
        step: 'charge',
        attemptNumber: 1,
        outcome: 'succeeded',
        startedAt: new Date(start - 1_000),
        finishedAt: new Date(start - 900),
        costMicros: 0,
      },
    );
    const traceId = randomBytes(16).toString('hex');
    const parent = randomBytes(8).toString('hex');
    const named = (offset: number, attempt: number) =>
      jsonSpan(traceId, parent, 'charge', start + offset, {
        attributes: [
          { key: 'holdfast.step', value: { stringValue: 'charge' } },
          { key: 'holdfast.task', value: { stringValue: task } },
          { key: 'holdfast.attempt', value: { intValue: String(attempt) } },
        ],
      });
    const spans = [named(0, 1), named(1_000, 2)];
    const answer = await post(JSON.stringify(requestOf(agent, spans)));
    expect(answer.status).toBe(200);
    const rows = await database.sql<
      { attempt_number: number; idempotency_key: string | null; source: string | null }[]
    >`
      select attempt_number, idempotency_key, source from attempts where task_id = ${task} order by attempt_number`;
    expect(rows.map((row) => [row.attempt_number, row.source])).toEqual([
      [1, 'library'],
      [2, 'traces'],
    ]);
    expect(rows[1]!.idempotency_key).toBe(`span:${traceId}/${spans[1]!.spanId}`);
    const [stored] = await database.sql<{ n: number }[]>`
      select count(*)::int as n from trace_spans where trace_id = ${traceId}`;
    expect(stored!.n).toBe(2);
  });

  it('refuses what it cannot read (400), what is too large (413), other types (415), and writes nothing', async () => {
    const before = await database.sql`select count(*)::int as n from trace_spans`;
    expect((await post('{"resourceSpans": [')).status).toBe(400);
    expect((await post(Buffer.from([0xff, 0xff, 0xff]), { 'content-type': 'application/x-protobuf' })).status).toBe(
      400,
    );
    expect((await post(Buffer.from('not gzip'), { 'content-encoding': 'gzip' })).status).toBe(400);
    expect((await post(Buffer.alloc(5 * 1024 * 1024, 0x20))).status).toBe(413);
    expect((await post('{}', { 'content-type': 'text/plain' })).status).toBe(415);
    expect(await database.sql`select count(*)::int as n from trace_spans`).toEqual(before);
  });

  it('rejects spans whose texts PostgreSQL cannot store, and a body nested too deep, without a 500', async () => {
    const traceId = randomBytes(16).toString('hex');
    const parent = randomBytes(8).toString('hex');
    const start = Date.now() - 10_000;
    const withNul = jsonSpan(traceId, parent, 'chat', start, { status: { code: 2, message: 'bad\u0000byte' } });
    const withSurrogate = jsonSpan(traceId, parent, 'chat', start + 1, {
      attributes: [
        { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
        { key: 'gen_ai.conversation.id', value: { stringValue: 'conv-\ud800' } },
      ],
    });
    const answer = await post(JSON.stringify(requestOf('texts', [withNul, withSurrogate])));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ partialSuccess: { rejectedSpans: '2' } });
    expect(await database.sql`select count(*)::int as n from attempts where agent = 'texts'`).toEqual([{ n: 0 }]);

    const deep = `{"resourceSpans":${'['.repeat(100)}${']'.repeat(100)}}`;
    expect((await post(deep)).status).toBe(400);
  });

  it('answers only to the host names Holdfast serves (the console gate does not run here), and to no other path', async () => {
    const agent = `host-${randomUUID().slice(0, 8)}`;
    const body = JSON.stringify(
      requestOf(agent, [jsonSpan(randomBytes(16).toString('hex'), randomBytes(8).toString('hex'), 'chat', Date.now())]),
    );
    const foreign = await postWithHost(body, 'rebind.attacker.example');
    expect(foreign.status).toBe(400);
    expect(foreign.body).toContain('does not answer to that host name');
    expect(await database.sql`select count(*)::int as n from attempts where agent = ${agent}`).toEqual([{ n: 0 }]);
    expect((await postWithHost(body, `localhost:${new URL(server.baseUrl).port}`)).status).toBe(200);
    expect(await database.sql`select count(*)::int as n from attempts where agent = ${agent}`).toEqual([{ n: 1 }]);
    // A neighbouring path is the console's, behind its gate: no session, no page.
    const neighbour = await fetch(`${server.baseUrl}/v1/traces-export`, { redirect: 'manual' });
    expect(neighbour.status).toBe(307);
    expect(neighbour.headers.get('location')).toContain('/sign-in');
  });

  it('answers 401 without a token and 403 without the traces scope', async () => {
    const body = JSON.stringify(requestOf('anyone', []));
    expect((await post(body, {}, 'hf_not-a-token')).status).toBe(401);
    expect((await post(body, {}, tokens.ingestOnly)).status).toBe(403);
  });

  it('rejects in partial_success the spans of agents a limited token may not act for, and keeps the rest', async () => {
    const traceId = randomBytes(16).toString('hex');
    const parent = randomBytes(8).toString('hex');
    const start = Date.now() - 20_000;
    const body = {
      resourceSpans: [
        ...requestOf('research', [jsonSpan(traceId, parent, 'summarise', start)]).resourceSpans,
        ...requestOf('payments', [
          jsonSpan(traceId, parent, 'charge', start),
          jsonSpan(traceId, parent, 'refund', start),
        ]).resourceSpans,
      ],
    };
    const answer = await post(JSON.stringify(body), {}, tokens.limited);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({
      partialSuccess: { rejectedSpans: '2', errorMessage: expect.stringContaining('research') },
    });
    const kept = await database.sql<{ agent: string; step: string }[]>`
      select agent, step from attempts where idempotency_key like ${`span:${traceId}/%`} order by step`;
    expect(kept).toEqual([{ agent: 'research', step: 'summarise' }]);
  });

  it('keeps stored spans only as long as the attempt days they became: retention drops the older ones', async () => {
    const day = 24 * 3_600_000;
    const old = new Date(Date.now() - 40 * day);
    // A span stored 40 days ago (its attempt's day already gone), beside today's.
    await database.sql`insert into trace_spans (trace_id, span_id, task_id, agent, step, started_at, finished_at,
      outcome, cost_micros, cost_source) values (${randomBytes(16).toString('hex')}, ${randomBytes(8).toString('hex')}, 'old', 'old',
      'old', ${old.toISOString()}, ${old.toISOString()}, 'succeeded', 0, 'none')`;
    const today = (
      await database.sql`select count(*)::int as n from trace_spans where started_at > now() - interval '1 day'`
    )[0]!.n;
    expect(today).toBeGreaterThan(0);
    await dropAttemptPartitionsBefore(database.db, new Date(Date.now() - 31 * day));
    expect(await database.sql`select count(*)::int as n from trace_spans`).toEqual([{ n: today }]);
  });
});
