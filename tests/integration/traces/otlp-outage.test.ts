import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SpanStatusCode } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiToken } from '../../../packages/engine/src/core';
import { connectDatabase, type DatabaseConnection } from '../../../packages/engine/src/db/client';
import { findFreePort } from '../../../packages/engine/src/db/embedded-postgres';
import { migrateDatabase } from '../../../packages/engine/src/db/migrate';
import { createKillablePostgres, type KillablePostgres, waitFor } from '../../../scripts/ci/faults/killable-postgres';
import { type HoldfastServer, startHoldfastServer } from '../../support/holdfast-server';
import { aPerson } from '../../support/actors';
import { startAgentRun } from '../../support/agent-run-span';

/**
 * PostgreSQL going away under a running Holdfast (the production server) while
 * the OpenTelemetry SDK's protobuf exporter sends to POST /v1/traces: a
 * PostgreSQL of this file's own, killed with SIGKILL and started again on the
 * same port. The exporter is told to come back later (503 + Retry-After),
 * nothing of the batch is kept, and the same batch is taken once when it does.
 * The exporter talks to the server through a small proxy that records every
 * exchange and can hold a request back while the test looks at the database.
 */
const admin = aPerson('admin', 'oncall@example.com');
let folder: string;
let postgres: KillablePostgres;
let library: DatabaseConnection;
let server: HoldfastServer;
let token: string;

beforeAll(async () => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'holdfast-otlp-outage-'));
  postgres = await createKillablePostgres(folder, await findFreePort());
  await postgres.start();
  await migrateDatabase(postgres.url);
  library = connectDatabase(postgres.url, { maxConnections: 2, connectTimeoutSeconds: 2 });
  token = (await createApiToken({ db: library.db, actor: admin }, { name: 'outage exporter', scopes: ['traces'] }))
    .token;
  server = await startHoldfastServer({
    env: {
      DATABASE_URL: postgres.url,
      SESSION_SECRET: randomBytes(32).toString('hex'),
      AUTH_MODE: 'demo',
      HOLDFAST_INSECURE_DEMO: '1',
    },
  });
}, 300_000);

afterAll(async () => {
  await server?.stop();
  await library?.close();
  await postgres?.destroy();
  fs.rmSync(folder, { recursive: true, force: true });
});

interface Exchange {
  requestBody: Buffer;
  status: number;
  headers: Headers;
  body: string;
}

/**
 * A loopback proxy in front of the server that records every exchange. The
 * first request goes straight through; later ones wait until `release()`, so
 * the test can look at the database between the exporter's tries.
 */
async function recordingProxy(target: string) {
  const exchanges: Exchange[] = [];
  let seen = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const proxy = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      seen += 1;
      if (seen > 1) await gate;
      const requestBody = Buffer.concat(chunks);
      const headers = Object.fromEntries(
        Object.entries(request.headers)
          .filter(([name]) => !['host', 'connection', 'content-length', 'transfer-encoding'].includes(name))
          .map(([name, value]) => [name, String(value)]),
      );
      const answer = await fetch(`${target}${request.url}`, {
        method: request.method,
        headers,
        body: new Uint8Array(requestBody),
      });
      const body = Buffer.from(await answer.arrayBuffer());
      exchanges.push({ requestBody, status: answer.status, headers: answer.headers, body: body.toString('utf8') });
      response.writeHead(answer.status, Object.fromEntries(answer.headers));
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    exchanges,
    /** Requests that reached the proxy, answered or waiting at the gate. */
    seen: () => seen,
    release,
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  };
}

/**
 * One model call of an agent, finished: refused with 429, cut short by a 503,
 * then answered, as three sibling spans under the run's span (four spans).
 */
function finishedRun(agent: string) {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': agent }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
  });
  const tracer = provider.getTracer('outage-test');
  const base = Date.now() - 60_000;
  const { run, inRun } = startAgentRun(tracer, 'outage', base);
  const chat = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'openai',
    'gen_ai.request.model': 'gpt-4o-mini',
    'gen_ai.usage.input_tokens': 1_000,
  };
  for (const [offset, status] of [
    [1_000, 429],
    [2_000, 503],
    [3_000, 200],
  ] as const) {
    const span = tracer.startSpan('chat summarize', { startTime: base + offset, attributes: chat }, inRun);
    if (status !== 200) {
      span.setAttributes({ 'error.type': String(status), 'http.response.status_code': status });
      span.setStatus({ code: SpanStatusCode.ERROR, message: status === 429 ? 'Too Many Requests' : 'Unavailable' });
    } else {
      span.setAttribute('gen_ai.usage.output_tokens', 200);
    }
    span.end(base + offset + 500);
  }
  run.end(base + 4_000);
  return memory.getFinishedSpans();
}

function exporterTo(url: string) {
  // A generous timeout: the test decides when the database comes back, not the exporter's default 10 s.
  return new OTLPTraceExporter({
    url: `${url}/v1/traces`,
    headers: { authorization: `Bearer ${token}` },
    timeoutMillis: 60_000,
  });
}

/** The spans stored (the calls and their run: agent_runs), and the attempts made of them. */
async function storedOf(agent: string) {
  const spans = await library.sql<{ n: number }[]>`
    select (select count(*) from trace_spans where agent = ${agent})::int
      + (select count(*) from agent_runs where agent = ${agent})::int as n`;
  const attempts = await library.sql<{ step: string; attempt_number: number; outcome: string; cost_source: string }[]>`
    select step, attempt_number, outcome, cost_source from attempts where agent = ${agent} order by step, attempt_number`;
  return { spans: spans[0]!.n, attempts };
}

const expectedAttempts = [
  { step: 'chat_summarize', attempt_number: 1, outcome: 'failed', cost_source: 'rule' },
  { step: 'chat_summarize', attempt_number: 2, outcome: 'failed', cost_source: 'priced' },
  { step: 'chat_summarize', attempt_number: 3, outcome: 'succeeded', cost_source: 'priced' },
];

describe('POST /v1/traces while PostgreSQL is down', () => {
  it('answers the protobuf exporter 503 with Retry-After, keeps nothing, and takes the batch once when the database is back', async () => {
    const agent = `outage-${randomBytes(3).toString('hex')}`;
    const spans = finishedRun(agent);
    const proxy = await recordingProxy(server.baseUrl);
    const exporter = exporterTo(proxy.url);
    let down = false;
    try {
      await postgres.kill();
      down = true;
      const exported = new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(spans, resolve));

      // The exporter's first try: 503, with a Retry-After it honours and a body it does not need to read.
      await waitFor(() => proxy.exchanges.length === 1, 30_000, 'the first answer');
      const first = proxy.exchanges[0]!;
      expect(first.status).toBe(503);
      expect(Number(first.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number.isInteger(Number(first.headers.get('retry-after')))).toBe(true);
      expect(first.headers.get('content-type')).toContain('application/problem+json');
      expect(JSON.parse(first.body)).toMatchObject({ status: 503, code: 'DATABASE_UNAVAILABLE', retryable: true });

      // It tries again (held at the proxy); meanwhile the database comes back, and nothing of the batch is there.
      await waitFor(() => proxy.seen() === 2, 30_000, 'the exporter to try again');
      await postgres.start();
      down = false;
      expect(await storedOf(agent)).toEqual({ spans: 0, attempts: [] });

      proxy.release();
      const result = await exported;
      expect(result).toEqual({ code: 0 }); // ExportResultCode.SUCCESS
      const statuses = proxy.exchanges.map((exchange) => exchange.status);
      expect(statuses.at(-1)).toBe(200);
      // A pool connection the outage closed may cost one more 503 after the restart; never anything else.
      expect(statuses.slice(0, -1).every((status) => status === 503)).toBe(true);
      expect(proxy.exchanges.every((exchange) => exchange.requestBody.equals(first.requestBody))).toBe(true);
      expect(await storedOf(agent)).toEqual({ spans: 4, attempts: expectedAttempts });

      // Sent once more (an exporter that timed out on the answer would): nothing new.
      const again = await new Promise<{ code: number }>((resolve) => exporterTo(server.baseUrl).export(spans, resolve));
      expect(again.code).toBe(0);
      expect(await storedOf(agent)).toEqual({ spans: 4, attempts: expectedAttempts });
    } finally {
      if (down) await postgres.start();
      await exporter.shutdown();
      await proxy.close();
    }
  }, 120_000);

  it('keeps nothing of a batch whose connection dies half-way through the write, and takes it once on the retry', async () => {
    const agent = `midway-${randomBytes(3).toString('hex')}`;
    const spans = finishedRun(agent);
    // The spans are stored, then the attempts' identities are written: the connection dies right there.
    await library.sql.unsafe(`
      create function die_midway() returns trigger language plpgsql as $$
      begin perform pg_terminate_backend(pg_backend_pid()); return null; end $$;
      create trigger die_midway after insert on attempt_identities for each statement execute function die_midway();`);
    const proxy = await recordingProxy(server.baseUrl);
    const exporter = exporterTo(proxy.url);
    try {
      const exported = new Promise<{ code: number }>((resolve) => exporter.export(spans, resolve));
      await waitFor(() => proxy.exchanges.length === 1, 30_000, 'the first answer');
      expect(proxy.exchanges[0]).toMatchObject({ status: 503 });
      expect(Number(proxy.exchanges[0]!.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(JSON.parse(proxy.exchanges[0]!.body)).toMatchObject({ code: 'DATABASE_UNAVAILABLE', retryable: true });
      await waitFor(() => proxy.seen() === 2, 30_000, 'the exporter to try again');
      expect(await storedOf(agent)).toEqual({ spans: 0, attempts: [] });

      await library.sql.unsafe('drop trigger die_midway on attempt_identities; drop function die_midway()');
      proxy.release();
      expect(await exported).toEqual({ code: 0 });
      expect(proxy.exchanges.at(-1)?.status).toBe(200);
      expect(await storedOf(agent)).toEqual({ spans: 4, attempts: expectedAttempts });
    } finally {
      await library.sql.unsafe('drop trigger if exists die_midway on attempt_identities');
      await library.sql.unsafe('drop function if exists die_midway()');
      await exporter.shutdown();
      await proxy.close();
    }
  }, 120_000);
});
