/**
 * `npm run bench:otlp-abuse`: what 16 abusive trace exporters cost another agent. One agent begins steps
 * (POST /api/v1/steps/begin, a new task each, one at a time) and its p95 is measured twice: alone, and while
 * BENCH_EXPORTERS (default 16) exporters each post, back to back, protobuf batches at the limits of one
 * request (packages/engine/src/traces/otlp-limits.ts: 1,000 counted spans of 128 attributes each, one of them a 64 KiB text),
 * all with one token of the deployment's default rate limit (as an abuser's would be; BENCH_EXPORTER_RATE and
 * BENCH_EXPORTER_BURST set another). The ratio of the two p95s is the figure (goal: at most 2x); the exporters'
 * answers are counted by status. The server's event-loop delay is not visible from outside: the begin p95 is it.
 *
 * The server is started as bench:otlp starts it (scripts/lib/bench-setup.ts: `npm start`'s script, which builds
 * first if the build is stale); a throwaway embedded PostgreSQL (or BENCH_DATABASE_URL). BENCH_SECONDS per
 * side (default 20) after BENCH_WARM_UP_SECONDS (default 3) of warm-up each; the load generator, the server and
 * PostgreSQL share this machine.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import { createApiToken } from '@holdfast/engine/core';
import { connectDatabase } from '@holdfast/engine/db';
import { migrateDatabase } from '@holdfast/engine/db';
import { OTLP_LIMITS } from '@holdfast/engine/traces';
import { benchDatabase, benchServer, createBenchToken } from './lib/bench-setup';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const WARM_UP_SECONDS = Number(process.env.BENCH_WARM_UP_SECONDS ?? 3);
const EXPORTERS = Number(process.env.BENCH_EXPORTERS ?? 16);

const requireCommonJs = createRequire(import.meta.url);
const ExportTraceServiceRequest = requireCommonJs('otlp-proto-root/build/src/generated/root').opentelemetry.proto
  .collector.trace.v1.ExportTraceServiceRequest as {
  fromObject(object: unknown): unknown;
  encode(message: unknown): { finish(): Uint8Array };
};

/** A request at the limits: 1,000 counted spans (each its own task), 128 attributes each, one a 64 KiB text. */
function abusiveBody(): Buffer {
  const start = BigInt(Date.now() - 60_000) * 1_000_000n;
  const filler = Array.from({ length: OTLP_LIMITS.attributesPerSpan - 4 }, (_, i) => ({
    key: `filler.${i}`,
    value: { stringValue: '' },
  }));
  const spans = Array.from({ length: OTLP_LIMITS.spansPerRequest }, (_, index) => ({
    traceId: randomBytes(16),
    spanId: randomBytes(8),
    name: 'abuse',
    kind: 1,
    startTimeUnixNano: String(start + BigInt(index)),
    endTimeUnixNano: String(start + BigInt(index) + 1_000_000n),
    attributes: [
      { key: 'holdfast.agent', value: { stringValue: 'abuser' } },
      { key: 'holdfast.step', value: { stringValue: 'abuse' } },
      { key: 'holdfast.task', value: { stringValue: `abuse-${randomUUID()}` } },
      { key: 'prompt', value: { stringValue: 'x'.repeat(index === 0 ? OTLP_LIMITS.valueBytes : 16) } },
      ...filler,
    ],
    status: { code: 1 },
  }));
  const request = { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans }] }] };
  return Buffer.from(ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(request)).finish());
}

function postOnce(
  agent: http.Agent,
  url: URL,
  path: string,
  token: string,
  contentType: string,
  body: Buffer,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${token}`, 'content-type': contentType, 'content-length': body.byteLength },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** Begins steps of new tasks one after another for `seconds`; the latencies in ms (warm-up left out). */
async function beginLatencies(baseUrl: string, token: string, seconds: number, warmUpSeconds: number) {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  const warmUntil = performance.now() + warmUpSeconds * 1_000;
  const until = warmUntil + seconds * 1_000;
  try {
    while (performance.now() < until) {
      const body = Buffer.from(
        JSON.stringify({
          taskId: `begin-${randomUUID()}`,
          agent: 'bystander',
          owner: 'team:bystander',
          step: 'work',
          content: { n: 1 },
        }),
      );
      const started = performance.now();
      const status = await postOnce(agent, url, '/api/v1/steps/begin', token, 'application/json', body);
      if (status !== 200) throw new Error(`bench:otlp-abuse: steps/begin answered ${status}`);
      if (started >= warmUntil) latencies.push(performance.now() - started);
    }
  } finally {
    agent.destroy();
  }
  return latencies;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function main() {
  const database = await benchDatabase('bench-otlp-abuse');
  let server: Awaited<ReturnType<typeof benchServer>> | undefined;
  try {
    await migrateDatabase(database.url);
    const bystander = await createBenchToken(database.url, 'bystander', ['ingest']);
    const setup = connectDatabase(database.url, { maxConnections: 1 });
    const rate = process.env.BENCH_EXPORTER_RATE ? Number(process.env.BENCH_EXPORTER_RATE) : undefined;
    const burst = process.env.BENCH_EXPORTER_BURST ? Number(process.env.BENCH_EXPORTER_BURST) : undefined;
    const abuser = (
      await createApiToken(
        { db: setup.db, actor: { type: 'person', id: 'bench@holdfast.local', role: 'admin', teams: [] } },
        { name: 'abuser', scopes: ['traces'], ratePerSecond: rate, rateBurst: burst },
      )
    ).token;
    await setup.close();
    server = await benchServer(database.url);
    const bodies = Array.from({ length: 8 }, abusiveBody);

    console.log(
      `OTLP abuse benchmark: ${os.cpus().length} CPU(s), Node ${process.version}; load generator, server and PostgreSQL on this machine`,
    );
    console.log(
      `steps/begin of another agent, one at a time, ${SECONDS} s per side after ${WARM_UP_SECONDS} s of warm-up; ${EXPORTERS} exporters posting ${OTLP_LIMITS.spansPerRequest}-span batches at the limits (${(bodies[0]!.byteLength / 1024 / 1024).toFixed(1)} MiB each) with one token (rate ${rate ?? 'default'}/s, burst ${burst ?? 'default'})`,
    );

    const quiet = await beginLatencies(server.baseUrl, bystander, SECONDS, WARM_UP_SECONDS);

    const url = new URL(server.baseUrl);
    /** Another agent's begins while EXPORTERS exporters post the bodies back to back with `token`. */
    const beside = async (token: string) => {
      const exporterAgent = new http.Agent({ keepAlive: true, maxSockets: EXPORTERS });
      const statuses = new Map<number, number>();
      let stop = false;
      const exporters = Array.from({ length: EXPORTERS }, async (_, index) => {
        for (let sent = 0; !stop; sent += 1) {
          const status = await postOnce(
            exporterAgent,
            url,
            '/v1/traces',
            token,
            'application/x-protobuf',
            bodies[(index + sent) % bodies.length]!,
          ).catch(() => -1);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          // A refused exporter comes back at once, as an abusive one would (ignoring Retry-After).
        }
      });
      const latencies = await beginLatencies(server!.baseUrl, bystander, SECONDS, WARM_UP_SECONDS);
      stop = true;
      await Promise.all(exporters);
      exporterAgent.destroy();
      return { latencies, statuses };
    };
    // The ceiling: the same flood with a token Holdfast does not know, refused (401) before anything is read.
    const flood = await beside('hf_not_a_token');
    const { latencies: loaded, statuses } = await beside(abuser);

    const row = (name: string, latencies: number[]) =>
      `${name.padEnd(16)} ${String(latencies.length).padStart(8)} ${percentile(latencies, 50).toFixed(1).padStart(8)} ${percentile(latencies, 95).toFixed(1).padStart(8)} ${Math.max(
        ...latencies,
      )
        .toFixed(1)
        .padStart(9)}`;
    console.log();
    console.log('                  begins   p50 ms   p95 ms    max ms');
    console.log(row('alone', quiet));
    console.log(row('flood, no token', flood.latencies));
    console.log(row(`${EXPORTERS} exporters`, loaded));
    console.log();
    console.log(
      `p95 with exporters / alone: ${(percentile(loaded, 95) / percentile(quiet, 95)).toFixed(2)}x (goal: at most 2x)`,
    );
    console.log(
      `p95 with exporters / the same flood refused unread: ${(percentile(loaded, 95) / percentile(flood.latencies, 95)).toFixed(2)}x (what trace ingest adds to the HTTP flood itself)`,
    );
    console.log(
      `exporters' answers: ${[...statuses.entries()]
        .sort(([a], [b]) => a - b)
        .map(([status, count]) => `${status === -1 ? 'network error' : status} x${count}`)
        .join(', ')}`,
    );
  } finally {
    await server?.stop();
    await database.stop();
  }
}

await main();
