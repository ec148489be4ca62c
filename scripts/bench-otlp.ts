/**
 * `npm run bench:otlp`: OpenTelemetry spans ingested per second through
 * POST /v1/traces (protobuf, batches of 512 spans as the SDK's batch processor
 * sends them) from 1 and 4 concurrent exporters, beside the bare ceiling: the
 * same batches' attempt rows written with one multi-row INSERT per batch, from
 * as many connections. Each batch is new spans: 128 model calls of 4 sibling
 * spans (a first try and three retries), with token counts and a model, so
 * every span is numbered among its siblings and priced.
 *
 * The rounds alternate which side goes first after a discarded warm-up round
 * each (scripts/lib/bench-compare.ts); the median round is reported. The load
 * generator, the server and PostgreSQL share this machine, so read the ratio.
 * A throwaway embedded PostgreSQL (or BENCH_DATABASE_URL); BENCH_SECONDS per
 * round (default 5), BENCH_ROUNDS measured rounds per side (default 3).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import { connectDatabase } from '../lib/db/client';
import { migrateDatabase } from '../lib/db/migrate';
import { alternateRounds, type Figures, measureLoops, medianRound } from './lib/bench-compare';
import { benchDatabase, benchServer, createBenchToken } from './lib/bench-setup';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARM_UP_SECONDS = Math.min(2, SECONDS);
const EXPORTERS = [1, 4];
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
  /** The attempt rows the receiver would write, as the ceiling writes them. */
  rows: string;
}

/** A new batch: its own trace, 128 parents, 4 siblings each, started within the last hour. */
function makeBatch(agent: string): Batch {
  const traceId = randomBytes(16);
  const traceHex = traceId.toString('hex');
  const base = Date.now() - 3_600_000 + Math.floor(Math.random() * 3_000_000);
  const spans = [];
  const rows = [];
  for (let call = 0; call < SPANS_PER_BATCH / SIBLINGS; call += 1) {
    const parent = randomBytes(8);
    for (let attempt = 1; attempt <= SIBLINGS; attempt += 1) {
      const spanId = randomBytes(8);
      const start = base + call * 1_000 + attempt * 100;
      const failed = attempt < SIBLINGS;
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
          { key: 'gen_ai.usage.input_tokens', value: { intValue: 1_000 } },
          { key: 'gen_ai.usage.output_tokens', value: { intValue: failed ? 20 : 200 } },
          ...(failed ? [{ key: 'error.type', value: { stringValue: '503' } }] : []),
        ],
        status: failed ? { code: 2, message: 'Service Unavailable' } : { code: 1 },
      });
      rows.push({
        task_id: `${traceHex}/${parent.toString('hex')}`,
        agent,
        step: 'chat_draft',
        attempt_number: attempt,
        started_at: new Date(start).toISOString(),
        finished_at: new Date(start + 80).toISOString(),
        outcome: failed ? 'failed' : 'succeeded',
        error_class: failed ? 'transient' : null,
        error_text: failed ? 'Service Unavailable' : null,
        cost_micros: failed ? 2_700 : 4_500,
        idempotency_key: `span:${traceHex}/${spanId.toString('hex')}`,
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
  return { body, rows: JSON.stringify(rows) };
}

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

async function main() {
  const database = await benchDatabase('bench-otlp');
  let server: Awaited<ReturnType<typeof benchServer>> | undefined;
  try {
    await migrateDatabase(database.url);
    const token = await createBenchToken(database.url, 'bench exporter', ['traces']);
    server = await benchServer(database.url);

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
      const poster = protobufPoster(server.baseUrl, token, exporters);
      const pool = connectDatabase(database.url, { maxConnections: exporters });
      // Enough batches for a round at 20,000 spans a second.
      const batchesPerRound = (seconds: number) => Math.ceil((20_000 * seconds) / SPANS_PER_BATCH);
      try {
        const [receiver, ceiling] = await alternateRounds<Figures>(
          [
            (seconds) => {
              receiverSupply.fill(batchesPerRound(seconds));
              return measureLoops(exporters, seconds, () => poster(receiverSupply.next().body), SPANS_PER_BATCH);
            },
            (seconds) => {
              ceilingSupply.fill(batchesPerRound(seconds));
              return measureLoops(
                exporters,
                seconds,
                () =>
                  pool.sql.unsafe(
                    `insert into attempts (task_id, agent, step, attempt_number, started_at, finished_at, latency_ms,
                       outcome, error_class, error_text, cost_micros, idempotency_key)
                     select task_id, agent, step, attempt_number, started_at, finished_at, 80, outcome, error_class,
                       error_text, cost_micros, idempotency_key
                     from jsonb_to_recordset($1::jsonb) as r(task_id text, agent text, step text, attempt_number int,
                       started_at timestamptz, finished_at timestamptz, outcome text, error_class error_class,
                       error_text text, cost_micros bigint, idempotency_key text)`,
                    [ceilingSupply.next().rows],
                  ),
                SPANS_PER_BATCH,
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
      } finally {
        poster.close();
        await pool.close();
      }
    }
  } finally {
    await server?.stop();
    await database.stop();
  }
}

await main();
