import { randomBytes, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { NextRequest } from 'next/server';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiToken } from '../../../packages/engine/src/core';
import { OTLP_LIMITS } from '../../../packages/engine/src/traces/otlp-limits';
import { useApi } from '../../support/api-harness';
import { aPerson } from '../../support/actors';

/**
 * The limits of one OTLP/HTTP traces request (packages/engine/src/traces/otlp-limits.ts, docs/agents/opentelemetry.md "Limits"):
 * a request at each limit is taken, one past it answered as documented, and nothing of a refused span or request
 * is written; reading a body never holds the event loop; the rate limit is charged by spans; a batch too large to
 * lock alone never holds back another exporter's. The receiver's handler, in-process, on a database of its own.
 */
const api = useApi();
const admin = aPerson('admin', 'admin@example.com');
type Handler = (request: NextRequest) => Promise<Response>;
let receive: Handler;
let token = '';

const requireCommonJs = createRequire(import.meta.url);
const trace = requireCommonJs('otlp-proto-root/build/src/generated/root').opentelemetry.proto.collector.trace.v1;
const ExportTraceServiceRequest = trace.ExportTraceServiceRequest as {
  fromObject(object: unknown): unknown;
  encode(message: unknown): { finish(): Uint8Array };
};
const ExportTraceServiceResponse = trace.ExportTraceServiceResponse as {
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: Record<string, unknown>): Record<string, unknown>;
};

beforeAll(async () => {
  ({ POST: receive } = (await import('../../../app/v1/traces/route')) as { POST: Handler });
  token = (await createApiToken({ db: api.database.db, actor: admin }, { name: 'exporter', scopes: ['traces'] })).token;
});

const kv = (key: string, value: Record<string, unknown>) => ({ key, value });

/** A counted span (it names its step) of `agent`, a task of its own unless told, and `extra` fields. */
function countedSpan(agent: string, extra: { attributes?: unknown[]; events?: unknown[]; task?: string } = {}) {
  const start = BigInt(Date.now() - 60_000) * 1_000_000n;
  return {
    traceId: randomBytes(16),
    spanId: randomBytes(8),
    name: 'work',
    kind: 1,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + 500_000_000n),
    attributes: [
      kv('holdfast.agent', { stringValue: agent }),
      kv('holdfast.step', { stringValue: 'work' }),
      kv('holdfast.task', { stringValue: extra.task ?? `task-${randomUUID()}` }),
      ...(extra.attributes ?? []),
    ],
    events: extra.events ?? [],
    status: { code: 1 },
  };
}

function protobufBody(spans: unknown[]) {
  const request = { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans }] }] };
  return Buffer.from(ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(request)).finish());
}

async function post(body: Buffer | string, options: { json?: boolean; bearer?: string; gzip?: boolean } = {}) {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const response = await receive(
    new NextRequest('http://localhost/v1/traces', {
      method: 'POST',
      body: new Uint8Array(options.gzip ? gzipSync(bytes) : bytes),
      headers: {
        host: 'localhost',
        authorization: `Bearer ${options.bearer ?? token}`,
        'content-type': options.json ? 'application/json' : 'application/x-protobuf',
        ...(options.gzip ? { 'content-encoding': 'gzip' } : {}),
      },
    }),
  );
  const answer = new Uint8Array(await response.arrayBuffer());
  let partialSuccess: { rejectedSpans?: string; errorMessage?: string } | undefined;
  if (response.status === 200) {
    partialSuccess = options.json
      ? JSON.parse(Buffer.from(answer).toString()).partialSuccess
      : (ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.decode(answer), { longs: String })
          .partialSuccess as typeof partialSuccess);
  }
  return { status: response.status, partialSuccess, text: Buffer.from(answer).toString() };
}

async function rowsOf(agent: string) {
  const [spans] = await api.database.sql<{ n: number }[]>`
    select count(*)::int as n from trace_spans where agent = ${agent}`;
  const [attempts] = await api.database.sql<{ n: number }[]>`
    select count(*)::int as n from attempts where agent = ${agent}`;
  return { spans: spans!.n, attempts: attempts!.n };
}

const attributes = (count: number) => Array.from({ length: count }, (_, i) => kv(`extra.${i}`, { stringValue: '' }));
const events = (count: number, attributeCount = 0) =>
  Array.from({ length: count }, (_, i) => ({
    name: 'log',
    timeUnixNano: String(i + 1),
    attributes: attributes(attributeCount),
  }));
const nestedValues = (count: number) => ({
  arrayValue: { values: Array.from({ length: count }, () => ({ boolValue: true })) },
});
const nestedDeep = (depth: number): Record<string, unknown> =>
  depth === 0 ? { stringValue: 'leaf' } : { arrayValue: { values: [nestedDeep(depth - 1)] } };

describe('a span at each per-span limit is taken, one past it is refused alone in partialSuccess', () => {
  // The three holdfast.* attributes count: a span at the limit has 125 more.
  const named = 3;
  const cases: [string, (agent: string) => ReturnType<typeof countedSpan>, string][] = [
    [
      'attributes',
      (agent) => countedSpan(agent, { attributes: attributes(OTLP_LIMITS.attributesPerSpan - named + 1) }),
      'a span has more than 128 attributes',
    ],
    [
      'events',
      (agent) => countedSpan(agent, { events: events(OTLP_LIMITS.eventsPerSpan + 1) }),
      'more than 128 events',
    ],
    [
      "an event's attributes",
      (agent) => countedSpan(agent, { events: events(1, OTLP_LIMITS.attributesPerEvent + 1) }),
      'an event has more than 128 attributes',
    ],
    [
      'values in an array',
      (agent) => countedSpan(agent, { attributes: [kv('list', nestedValues(OTLP_LIMITS.nestedValues + 1))] }),
      'more than 128 values',
    ],
    [
      'nested arrays',
      (agent) => countedSpan(agent, { attributes: [kv('deep', nestedDeep(OTLP_LIMITS.nestedDepth + 1))] }),
      'more than 4 deep',
    ],
  ];
  const atLimit: Record<string, (agent: string) => ReturnType<typeof countedSpan>> = {
    attributes: (agent) => countedSpan(agent, { attributes: attributes(OTLP_LIMITS.attributesPerSpan - named) }),
    events: (agent) => countedSpan(agent, { events: events(OTLP_LIMITS.eventsPerSpan) }),
    "an event's attributes": (agent) =>
      countedSpan(agent, { events: events(OTLP_LIMITS.eventsPerSpan, OTLP_LIMITS.attributesPerEvent) }),
    'values in an array': (agent) =>
      countedSpan(agent, { attributes: [kv('list', nestedValues(OTLP_LIMITS.nestedValues))] }),
    'nested arrays': (agent) => countedSpan(agent, { attributes: [kv('deep', nestedDeep(OTLP_LIMITS.nestedDepth))] }),
  };

  it.each(cases)('%s', async (name, pastLimit, reason) => {
    const agent = `limits-${name.replace(/\W/g, '-')}-${randomUUID().slice(0, 6)}`;
    const answer = await post(protobufBody([atLimit[name]!(agent), pastLimit(agent)]));
    expect(answer.status).toBe(200);
    expect(answer.partialSuccess?.rejectedSpans).toBe('1');
    expect(answer.partialSuccess?.errorMessage).toContain(reason);
    expect(await rowsOf(agent)).toEqual({ spans: 1, attempts: 1 });
  });

  it('refuses a JSON span past a limit the same way', async () => {
    const agent = `limits-json-${randomUUID().slice(0, 6)}`;
    const json = (span: ReturnType<typeof countedSpan>) => ({
      ...span,
      traceId: span.traceId.toString('hex'),
      spanId: span.spanId.toString('hex'),
    });
    const spans = [
      json(countedSpan(agent, { attributes: attributes(OTLP_LIMITS.attributesPerSpan - named) })),
      json(countedSpan(agent, { attributes: attributes(OTLP_LIMITS.attributesPerSpan - named + 1) })),
      json(countedSpan(agent, { attributes: [kv('deep', nestedDeep(OTLP_LIMITS.nestedDepth + 1))] })),
    ];
    const answer = await post(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] }), { json: true });
    expect(answer.status).toBe(200);
    expect(answer.partialSuccess?.rejectedSpans).toBe('2');
    expect(await rowsOf(agent)).toEqual({ spans: 1, attempts: 1 });
  });
});

describe('the request as a whole', () => {
  it('takes 1,000 spans and refuses 1,001 with 413, writing none of them', async () => {
    const agent = `limits-spans-${randomUUID().slice(0, 6)}`;
    const spans = Array.from({ length: OTLP_LIMITS.spansPerRequest + 1 }, () => countedSpan(agent));
    const past = await post(protobufBody(spans));
    expect(past.status).toBe(413);
    expect(past.text).toContain('at most 1000 spans');
    expect(await rowsOf(agent)).toEqual({ spans: 0, attempts: 0 });

    const at = await post(protobufBody(spans.slice(1)));
    expect(at.status).toBe(200);
    expect(at.partialSuccess).toBeUndefined();
    expect(await rowsOf(agent)).toEqual({ spans: 1_000, attempts: 1_000 });
  });

  it('cuts a text longer than 64 KiB to its first 64 KiB, takes the span and says so', async () => {
    const agent = `limits-text-${randomUUID().slice(0, 6)}`;
    const prompt = kv('gen_ai.prompt', { stringValue: 'p'.repeat(OTLP_LIMITS.valueBytes + 1) });
    const atLimit = kv('gen_ai.completion', { stringValue: 'c'.repeat(OTLP_LIMITS.valueBytes) });
    const answer = await post(protobufBody([countedSpan(agent, { attributes: [prompt, atLimit] })]));
    expect(answer.status).toBe(200);
    expect(answer.partialSuccess?.rejectedSpans ?? '0').toBe('0');
    expect(answer.partialSuccess?.errorMessage).toBe('1 text(s) longer than 65536 bytes cut to their first 65536');
    expect(await rowsOf(agent)).toEqual({ spans: 1, attempts: 1 });
  });

  it('refuses a JSON body over 1 MiB uncompressed with 413', async () => {
    const agent = `limits-json-size-${randomUUID().slice(0, 6)}`;
    const padding = ' '.repeat(1024 * 1024);
    const answer = await post(`{"resourceSpans":[]}${padding}`, { json: true });
    expect(answer.status).toBe(413);
    expect(await rowsOf(agent)).toEqual({ spans: 0, attempts: 0 });
  });
});

describe('the event loop', () => {
  it('is never held long by reading a body: 5 spans of 200,000 attributes each, and 1,000 spans at the limits', async () => {
    const agent = `limits-loop-${randomUUID().slice(0, 6)}`;
    // The body: 14 MB raw (sent gzipped, under the 4 MiB limit), each span far past the attribute limit.
    const empty = Array.from({ length: 200_000 }, (_, i) => kv(`k${i}`, { stringValue: '' }));
    const abusive = protobufBody(Array.from({ length: 5 }, () => countedSpan(agent, { attributes: empty })));
    const atLimits = protobufBody(
      Array.from({ length: OTLP_LIMITS.spansPerRequest }, () =>
        countedSpan(`${agent}-b`, { attributes: attributes(OTLP_LIMITS.attributesPerSpan - 3) }),
      ),
    );
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const [first, second] = [await post(abusive, { gzip: true }), await post(atLimits)];
    delay.disable();
    expect(first.status).toBe(200);
    expect(first.partialSuccess?.rejectedSpans).toBe('5');
    expect(second.status).toBe(200);
    expect(await rowsOf(agent)).toEqual({ spans: 0, attempts: 0 });
    expect(await rowsOf(`${agent}-b`)).toEqual({ spans: 1_000, attempts: 1_000 });
    // Reading yields every 2 ms (at most 28 ms held, measured on a quiet machine); before, the first body held the
    // loop about 1 s at once. The bound is far from both, so a busy machine (CI runs suites side by side) cannot
    // fail it and a reader that holds the loop for a whole body still does: docs/performance/otlp.md has the figures.
    expect(delay.max / 1e6).toBeLessThan(500);
  });
});

describe('the rate limit', () => {
  it('charges a batch one request per 10 spans (its bytes being fewer): a second batch past what is left is refused with 429, unwritten', async () => {
    const limited = (
      await createApiToken(
        { db: api.database.db, actor: admin },
        { name: 'small exporter', scopes: ['traces'], ratePerSecond: 0.01, rateBurst: 25 },
      )
    ).token;
    const agent = `limits-rate-${randomUUID().slice(0, 6)}`;
    const first = await post(protobufBody(Array.from({ length: 200 }, () => countedSpan(agent))), { bearer: limited });
    expect(first.status).toBe(200);
    // 20 of 25 taken: 60 spans cost 6.
    const second = await post(protobufBody(Array.from({ length: 60 }, () => countedSpan(`${agent}-b`))), {
      bearer: limited,
    });
    expect(second.status).toBe(429);
    expect(await rowsOf(agent)).toEqual({ spans: 200, attempts: 200 });
    expect(await rowsOf(`${agent}-b`)).toEqual({ spans: 0, attempts: 0 });
  });

  it('charges a batch by its size before its body is read: refused unread, its connection closed', async () => {
    const limited = (
      await createApiToken(
        { db: api.database.db, actor: admin },
        { name: 'large exporter', scopes: ['traces'], ratePerSecond: 0.01, rateBurst: 25 },
      )
    ).token;
    // 1 MiB costs 64 requests by its size (16 KiB each), more than the 25 the token holds.
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new Uint8Array(64 * 1024));
        if (pulled === 16) controller.close();
      },
    });
    const response = await receive(
      new NextRequest('http://localhost/v1/traces', {
        method: 'POST',
        body,
        duplex: 'half',
        headers: {
          host: 'localhost',
          authorization: `Bearer ${limited}`,
          'content-type': 'application/x-protobuf',
          'content-length': String(1024 * 1024),
        },
      } as ConstructorParameters<typeof NextRequest>[1]),
    );
    expect(response.status).toBe(429);
    expect(response.headers.get('connection')).toBe('close');
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    // At most what a stream buffers ahead of its reader: the body was never read.
    expect(pulled).toBeLessThanOrEqual(1);
    // The refusal took nothing: a small batch is still let through.
    const agent = `limits-size-${randomUUID().slice(0, 6)}`;
    expect((await post(protobufBody([countedSpan(agent)]), { bearer: limited })).status).toBe(200);
    expect(await rowsOf(agent)).toEqual({ spans: 1, attempts: 1 });
  });
});

async function waitFor(condition: () => Promise<boolean>) {
  for (let tries = 0; tries < 600; tries += 1) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('waited 30 s in vain');
}

describe('locks', () => {
  it("never lets a batch too large to lock alone hold back another exporter's batch", async () => {
    const big = `limits-big-${randomUUID().slice(0, 6)}`;
    const small = `limits-small-${randomUUID().slice(0, 6)}`;
    // 600 model calls, each of its own trace and task: 1,200 lock keys, more than one transaction takes.
    const calls = Array.from({ length: 600 }, () =>
      countedSpan(big, { attributes: [kv('gen_ai.operation.name', { stringValue: 'chat' })] }),
    );
    const blocked = calls[calls.length - 1]!;
    // Another session writes the big batch's last span and holds its transaction open: that batch waits on it.
    let release: () => void = () => {};
    let markInserted: () => void = () => {};
    const inserted = new Promise<void>((resolve) => {
      markInserted = resolve;
    });
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const holding = api.database.sql
      .begin(async (sql) => {
        await sql`insert into trace_spans (trace_id, span_id, kind, task_id, agent, step, started_at, finished_at,
            outcome, cost_micros, cost_source)
          values (${blocked.traceId.toString('hex')}, ${blocked.spanId.toString('hex')}, 'call', 'blocker', 'blocker',
            'work', now(), now(), 'succeeded', 0, 'none')`;
        markInserted();
        await released;
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    await inserted;
    const bigAnswer = post(protobufBody(calls));
    // Until the big batch's statement storing its spans waits on that span's key.
    await waitFor(async () => {
      const [waiting] = await api.database.sql<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and query like '%with batch as%'`;
      if (waiting!.n > 0) return true;
      // A batch that was answered without waiting ends the wait (its answer is checked below).
      return Promise.race([
        bigAnswer.then(() => true),
        new Promise<boolean>((resolve) => setImmediate(() => resolve(false))),
      ]);
    });

    const smallAnswer = await Promise.race([
      post(protobufBody([countedSpan(small)])),
      new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 10_000)),
    ]);
    release();
    await holding;
    expect(smallAnswer).not.toBe('waited');
    expect(smallAnswer === 'waited' ? 0 : smallAnswer.status).toBe(200);
    const bigAnswered = await bigAnswer;
    expect(bigAnswered.text).toBe('');
    expect(bigAnswered.status).toBe(200);
    expect(await rowsOf(big)).toEqual({ spans: 600, attempts: 600 });
    expect(await rowsOf(small)).toEqual({ spans: 1, attempts: 1 });
  });
});
