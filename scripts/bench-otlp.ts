/**
 * `npm run bench:otlp`: OpenTelemetry spans ingested per second through
 * POST /v1/traces (protobuf, batches of 512 spans as the SDK's batch processor
 * sends them) from 1 and 4 concurrent exporters, beside the bare ceiling: the
 * same rows the receiver writes for those batches (each span in trace_spans,
 * each attempt's identity and the attempt itself), written by one multi-row
 * statement per batch, from as many connections. Each batch is new spans: 128
 * model calls of 4 sibling spans (three failed tries and an answer), each with
 * its own token counts and a model, so every span is numbered among its
 * siblings and priced.
 *
 * The rounds alternate which side goes first after a discarded warm-up round
 * each (scripts/lib/bench-compare.ts); the median round is reported. The load
 * generator, the server and PostgreSQL share this machine, so read the ratio.
 * Each side's CPU time per batch is printed too (its own process: the server, or the ceiling's client; and the
 * database's backends), read from /proc: it explains the ratio, and other load on the machine barely moves it.
 * A throwaway embedded PostgreSQL (or BENCH_DATABASE_URL); BENCH_SECONDS per
 * round (default 5), BENCH_ROUNDS measured rounds per side (default 3), BENCH_EXPORTERS the exporter counts
 * to run (default "1,4").
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import { priceCall } from '@holdfast/engine/core';
import { connectDatabase } from '@holdfast/engine/db';
import { migrateDatabase } from '@holdfast/engine/db';
import { arrayLiteral } from '@holdfast/engine/core';
import { alternateRounds, type Figures, measureLoops, medianOf, medianRound } from './lib/bench-compare';
import { benchDatabase, benchServer, createBenchToken } from './lib/bench-setup';
import { cpuSpentBetween, databaseBackendsCpuMs, processCpuMs } from './lib/process-cpu';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARM_UP_SECONDS = Math.min(2, SECONDS);
const EXPORTERS = (process.env.BENCH_EXPORTERS ?? '1,4').split(',').map(Number);
const SPANS_PER_BATCH = 512;
const SIBLINGS = 4;

const requireCommonJs = createRequire(import.meta.url);
const ExportTraceServiceRequest = requireCommonJs('otlp-proto-root/build/src/generated/root').opentelemetry.proto
  .collector.trace.v1.ExportTraceServiceRequest as {
  fromObject(object: unknown): unknown;
  encode(message: unknown): { finish(): Uint8Array };
};

interface Batch {
  body: Buffer;
  /**
   * The rows the receiver writes for this batch, as the ceiling's columns: PostgreSQL array literals made as the
   * receiver makes its own (packages/engine/src/traces/sql-arrays.ts), times as epoch milliseconds.
   */
  columns: string[];
}

/** A new batch: its own trace, 128 parents, 4 siblings each, started within the last hour, tokens varying. */
function makeBatch(agent: string): Batch {
  const traceId = randomBytes(16);
  const traceHex = traceId.toString('hex');
  const base = Date.now() - 3_600_000 + Math.floor(Math.random() * 3_000_000);
  const spans = [];
  const rows: Record<string, string | number | null>[] = [];
  for (let call = 0; call < SPANS_PER_BATCH / SIBLINGS; call += 1) {
    const parent = randomBytes(8);
    for (let attempt = 1; attempt <= SIBLINGS; attempt += 1) {
      const spanId = randomBytes(8);
      const start = base + call * 1_000 + attempt * 100;
      const failed = attempt < SIBLINGS;
      // As real calls do, every call has its own token counts: no two prices need be the same.
      const inputTokens = 500 + Math.floor(Math.random() * 5_000);
      const outputTokens = failed ? Math.floor(Math.random() * 50) : 100 + Math.floor(Math.random() * 800);
      spans.push({
        traceId,
        spanId,
        parentSpanId: parent,
        name: 'chat draft',
        kind: 3,
        startTimeUnixNano: String(BigInt(start) * 1_000_000n),
        endTimeUnixNano: String(BigInt(start + 80) * 1_000_000n),
        attributes: [
          { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
          { key: 'gen_ai.provider.name', value: { stringValue: 'openai' } },
          { key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o' } },
          { key: 'gen_ai.usage.input_tokens', value: { intValue: inputTokens } },
          { key: 'gen_ai.usage.output_tokens', value: { intValue: outputTokens } },
          ...(failed ? [{ key: 'error.type', value: { stringValue: '503' } }] : []),
        ],
        status: failed ? { code: 2, message: 'Service Unavailable' } : { code: 1 },
      });
      const cost = priceCall({
        usage: { inputTokens, outputTokens },
        model: 'gpt-4o',
        provider: 'openai',
        failure: failed ? { httpStatus: 503, errorClass: 'transient' } : undefined,
        at: new Date(start),
      });
      rows.push({
        trace_id: traceHex,
        span_id: spanId.toString('hex'),
        parent_span_id: parent.toString('hex'),
        task_id: `${traceHex}/${parent.toString('hex')}`,
        agent,
        step: 'chat_draft',
        attempt_number: attempt,
        started_ms: start,
        finished_ms: start + 80,
        outcome: failed ? 'failed' : 'succeeded',
        error_class: failed ? 'transient' : null,
        error_text: failed ? 'Service Unavailable' : null,
        cost_micros: cost.costMicros,
        cost_source: cost.source,
      });
    }
  }
  const request = {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: agent } }] },
        scopeSpans: [{ scope: { name: 'bench' }, spans }],
      },
    ],
  };
  const body = Buffer.from(ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(request)).finish());
  return { body, columns: CEILING_COLUMNS.map((column) => arrayLiteral(rows.map((row) => row[column]!))) };
}

const CEILING_COLUMNS = [
  'trace_id',
  'span_id',
  'parent_span_id',
  'task_id',
  'agent',
  'step',
  'attempt_number',
  'started_ms',
  'finished_ms',
  'outcome',
  'error_class',
  'error_text',
  'cost_micros',
  'cost_source',
];

/**
 * The ceiling: the rows the receiver writes for a batch, by bare SQL in one statement (one transaction): each
 * span in trace_spans, each attempt's identity, each attempt, with the numbers already known. Nothing checked,
 * locked, read back or numbered, and no HTTP, decoding or pricing: what the receiver cannot go below.
 */
const CEILING_STATEMENT = `
  with b as (
    select trace_id, span_id, parent_span_id, task_id, agent, step, attempt_number,
      timestamptz 'epoch' + started_ms * interval '1 millisecond' as started_at,
      timestamptz 'epoch' + finished_ms * interval '1 millisecond' as finished_at,
      outcome, error_class, error_text, cost_micros, cost_source
    from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::bigint[],
      $9::bigint[], $10::text[], $11::error_class[], $12::text[], $13::bigint[], $14::text[])
      as b(trace_id, span_id, parent_span_id, task_id, agent, step, attempt_number, started_ms, finished_ms, outcome,
        error_class, error_text, cost_micros, cost_source)),
  spans as (
    insert into trace_spans (trace_id, span_id, kind, parent_span_id, task_id, agent, step, model_call, started_at,
      finished_at, outcome, error_class, error_text, cost_micros, cost_source)
    select trace_id, span_id, 'call', parent_span_id, task_id, agent, step, true, started_at, finished_at, outcome,
      error_class, error_text, cost_micros, cost_source from b),
  identities as (
    insert into attempt_identities (task_id, step, attempt_number, started_at)
    select task_id, step, attempt_number, started_at from b)
  insert into attempts (task_id, agent, step, attempt_number, started_at, finished_at, latency_ms, outcome,
    error_class, error_text, cost_micros, cost_source, idempotency_key, source)
  select task_id, agent, step, attempt_number, started_at, finished_at, 80, outcome, error_class, error_text,
    cost_micros, cost_source, 'span:' || trace_id || '/' || span_id, 'traces' from b`;

/** Batches made before a round, so the load generator's encoding is not timed; topped up if a round runs past them. */
function batchSupply(agent: string) {
  let ready: Batch[] = [];
  return {
    fill(count: number) {
      ready = Array.from({ length: count }, () => makeBatch(agent));
    },
    next: () => ready.pop() ?? makeBatch(agent),
  };
}

/** Posts on kept-alive sockets; a new poster per round, so that no socket idles past the server's keep-alive timeout. */
function protobufPoster(baseUrl: string, token: string, connections: number) {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const post = (body: Buffer) =>
    new Promise<void>((resolve, reject) => {
      const request = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: '/v1/traces',
          method: 'POST',
          agent,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/x-protobuf',
            'content-length': body.byteLength,
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            // 200 with an empty partial success is an encoded message of zero bytes: anything else failed.
            if (response.statusCode !== 200 || Buffer.concat(chunks).byteLength !== 0)
              reject(new Error(`bench:otlp: /v1/traces answered ${response.statusCode} ${Buffer.concat(chunks)}`));
            else resolve();
          });
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  return Object.assign(post, { close: () => agent.destroy() });
}

/** A round's figures with the CPU time a batch took: in the side's own process and in PostgreSQL's backends. */
interface CpuFigures extends Figures {
  ownCpuMsPerBatch: number;
  postgresCpuMsPerBatch: number;
}

/** Runs a round, reading the CPU time of `ownCpuMs`'s process and of the database's backends around it. */
async function withCpu(
  monitor: ReturnType<typeof connectDatabase>,
  ownCpuMs: () => Promise<number>,
  round: () => Promise<Figures>,
): Promise<CpuFigures> {
  const [ownBefore, postgresBefore] = [await ownCpuMs(), await databaseBackendsCpuMs(monitor.sql)];
  const figures = await round();
  const [ownAfter, postgresAfter] = [await ownCpuMs(), await databaseBackendsCpuMs(monitor.sql)];
  return {
    ...figures,
    ownCpuMsPerBatch: (ownAfter - ownBefore) / figures.calls,
    postgresCpuMsPerBatch: cpuSpentBetween(postgresBefore, postgresAfter) / figures.calls,
  };
}

/** This process's CPU time so far, in ms (the ceiling's client). */
const clientCpuMs = async () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1_000;
};

async function main() {
  const database = await benchDatabase('bench-otlp');
  let server: Awaited<ReturnType<typeof benchServer>> | undefined;
  try {
    await migrateDatabase(database.url);
    const token = await createBenchToken(database.url, 'bench exporter', ['traces']);
    server = await benchServer(database.url);
    const monitor = connectDatabase(database.url, { maxConnections: 1 });
    const serverPid = server.pid;
    const cpuLines: string[] = [];

    console.log(
      `OTLP ingest benchmark: ${os.cpus().length} CPU(s), Node ${process.version}; load generator, server and PostgreSQL on this machine`,
    );
    console.log(
      `Batches of ${SPANS_PER_BATCH} spans (protobuf); median of ${ROUNDS} rounds of ${SECONDS} s per side, alternating which side goes first, after a discarded ${WARM_UP_SECONDS} s warm-up round each`,
    );
    console.log();
    console.log('exporters   receiver spans/s   p95 ms   ceiling spans/s   p95 ms   receiver / ceiling');
    for (const exporters of EXPORTERS) {
      const receiverSupply = batchSupply('bench-otlp');
      const ceilingSupply = batchSupply('bench-ceiling');
      const pool = connectDatabase(database.url, { maxConnections: exporters });
      // Enough batches for a round at 20,000 spans a second.
      const batchesPerRound = (seconds: number) => Math.ceil((20_000 * seconds) / SPANS_PER_BATCH);
      try {
        const [receiver, ceiling] = await alternateRounds<CpuFigures>(
          [
            async (seconds) => {
              receiverSupply.fill(batchesPerRound(seconds));
              const poster = protobufPoster(server!.baseUrl, token, exporters);
              try {
                return await withCpu(
                  monitor,
                  () => processCpuMs(serverPid),
                  () => measureLoops(exporters, seconds, () => poster(receiverSupply.next().body), SPANS_PER_BATCH),
                );
              } finally {
                poster.close();
              }
            },
            (seconds) => {
              ceilingSupply.fill(batchesPerRound(seconds));
              return withCpu(monitor, clientCpuMs, () =>
                measureLoops(
                  exporters,
                  seconds,
                  () => pool.sql.unsafe(CEILING_STATEMENT, ceilingSupply.next().columns, { prepare: true }),
                  SPANS_PER_BATCH,
                ),
              );
            },
          ],
          { rounds: ROUNDS, seconds: SECONDS, warmUpSeconds: WARM_UP_SECONDS },
        );
        const rate = (rounds: Figures[]) => medianRound(rounds, (figures) => figures.perSecond);
        const p95 = (rounds: Figures[]) => medianRound(rounds, (figures) => figures.p95Ms).p95Ms;
        const ratio = rate(receiver).perSecond / rate(ceiling).perSecond;
        console.log(
          [
            String(exporters).padStart(9),
            rate(receiver).perSecond.toFixed(0).padStart(18),
            p95(receiver).toFixed(1).padStart(8),
            rate(ceiling).perSecond.toFixed(0).padStart(17),
            p95(ceiling).toFixed(1).padStart(8),
            `${ratio.toFixed(2)}x`.padStart(20),
          ].join(' '),
        );
        const cpu = (rounds: CpuFigures[], pick: (figures: CpuFigures) => number) => medianOf(rounds, pick).toFixed(1);
        cpuLines.push(
          [
            String(exporters).padStart(9),
            cpu(receiver, (figures) => figures.ownCpuMsPerBatch).padStart(15),
            cpu(receiver, (figures) => figures.postgresCpuMsPerBatch).padStart(19),
            cpu(ceiling, (figures) => figures.ownCpuMsPerBatch).padStart(14),
            cpu(ceiling, (figures) => figures.postgresCpuMsPerBatch).padStart(18),
          ].join(' '),
        );
      } finally {
        await pool.close();
      }
    }
    console.log();
    console.log('CPU ms per batch (median round): the receiver in its server and in PostgreSQL, the ceiling in its');
    console.log('client and in PostgreSQL');
    console.log('exporters   server (recv.)   PostgreSQL (recv.)   client (ceil.)   PostgreSQL (ceil.)');
    for (const line of cpuLines) console.log(line);
    await monitor.close();
  } finally {
    await server?.stop();
    await database.stop();
  }
}

await main();
