/**
 * `npm run bench:api`: attempts ingested per second through the HTTP API
 * (single reports and batches of 100, from 1 and 8 concurrent connections,
 * with autocannon as the loopback load generator), beside the same work
 * through `lib/core` directly, in the same run and on the same database.
 * The load generator, the server and PostgreSQL share this machine, so read
 * the ratios.
 *
 * Runs on a throwaway embedded PostgreSQL (or BENCH_DATABASE_URL), serving
 * Holdfast with `npm start`'s script (it builds first if the build is stale).
 * BENCH_SECONDS sets the length of each measurement (default 5).
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import autocannon from 'autocannon';
import { createApiToken, recordAttempt } from '../lib/core';
import { connectDatabase } from '../lib/db/client';
import { migrateDatabase } from '../lib/db/migrate';
import { benchDatabase, benchServer } from './lib/bench-setup';
import { stepsInProcess, stepsOverHttp, type StepFigures } from './lib/bench-steps';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const BATCH_SIZE = 100;
/** Measured rounds per side for the step comparison, alternating which side goes first. */
const STEP_ROUNDS = Number(process.env.BENCH_STEP_ROUNDS ?? 3);

let sequence = 0;
/** A fresh attempt report each call: every request records new rows. */
function report(run: string) {
  sequence += 1;
  const finishedAt = new Date();
  return {
    taskId: `bench-${run}-${sequence}`, agent: 'bench', step: 'ingest', attemptNumber: 1,
    startedAt: new Date(finishedAt.getTime() - 250).toISOString(), finishedAt: finishedAt.toISOString(), outcome: 'succeeded' as const, costMicros: 1_000,
  };
}

async function throughHttp(baseUrl: string, token: string, connections: number, batched: boolean): Promise<number> {
  const run = randomUUID().slice(0, 8);
  const result = await autocannon({
    url: `${baseUrl}${batched ? '/api/v1/attempts/batch' : '/api/v1/attempts'}`,
    connections,
    duration: SECONDS,
    requests: [
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify(batched ? { attempts: Array.from({ length: BATCH_SIZE }, () => report(run)) } : report(run)),
        }),
      },
    ],
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`bench:api: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  return (result.requests.average * (batched ? BATCH_SIZE : 1));
}

async function throughLibrary(url: string, clients: number): Promise<number> {
  const connection = connectDatabase(url, { maxConnections: clients });
  const run = randomUUID().slice(0, 8);
  let recorded = 0;
  const deadline = performance.now() + SECONDS * 1_000;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < deadline) {
        await recordAttempt({ db: connection.db }, report(run));
        recorded += 1;
      }
    }),
  );
  const elapsed = (performance.now() - began) / 1_000;
  await connection.close();
  return recorded / elapsed;
}

async function main() {
  const database = await benchDatabase('bench-api');
  let server: Awaited<ReturnType<typeof benchServer>> | undefined;
  try {
    await migrateDatabase(database.url);
    const setup = connectDatabase(database.url, { maxConnections: 1 });
    const { token } = await createApiToken(
      { db: setup.db, actor: { type: 'person', id: 'bench@holdfast.local', role: 'admin', teams: [] } },
      { name: 'bench', scopes: ['ingest'] },
    );
    await setup.close();

    server = await benchServer(database.url);
    await throughHttp(server.baseUrl, token, 1, false); // warm: compiled routes, prepared statements

    console.log(`Holdfast API benchmark: ${SECONDS} s per figure, ${os.cpus().length} CPU(s), Node ${process.version}; load generator, server and PostgreSQL on this machine`);
    console.log('path                          connections   attempts/s   library attempts/s   HTTP / library');
    for (const connections of [1, 8]) {
      const library = await throughLibrary(database.url, connections);
      for (const batched of [false, true]) {
        const http = await throughHttp(server.baseUrl, token, connections, batched);
        console.log(
          [
            (batched ? `HTTP batch of ${BATCH_SIZE}` : 'HTTP single').padEnd(28),
            String(connections).padStart(11),
            http.toFixed(0).padStart(12),
            library.toFixed(0).padStart(20),
            `${((http / library) * 100).toFixed(0)}%`.padStart(16),
          ].join(' '),
        );
      }
    }

    await compareSteps(database.url, server.baseUrl, token);
  } finally {
    await server?.stop();
    await database.stop();
  }
}

/**
 * One step (begin + finish) over HTTP beside the in-process runStep: the same
 * work on both sides, each warmed up with a discarded round, then rounds
 * alternating which side goes first; the median round of each is reported.
 */
async function compareSteps(databaseUrl: string, baseUrl: string, token: string) {
  const median = (rounds: StepFigures[], pick: (figures: StepFigures) => number) => rounds.map(pick).sort((a, b) => a - b)[Math.floor(rounds.length / 2)]!;
  console.log();
  console.log(`One step (begin + finish), median of ${STEP_ROUNDS} alternating rounds of ${SECONDS} s after a discarded warm-up round each`);
  console.log('connections   in-process steps/s   p95 ms   HTTP steps/s   p95 ms   HTTP / in-process');
  for (const connections of [1, 8]) {
    await stepsInProcess(databaseUrl, connections, Math.min(2, SECONDS));
    await stepsOverHttp(baseUrl, token, connections, Math.min(2, SECONDS));
    const local: StepFigures[] = [];
    const http: StepFigures[] = [];
    for (let round = 0; round < STEP_ROUNDS; round += 1) {
      const sides = [async () => local.push(await stepsInProcess(databaseUrl, connections, SECONDS)), async () => http.push(await stepsOverHttp(baseUrl, token, connections, SECONDS))];
      for (const side of round % 2 === 0 ? sides : sides.reverse()) await side();
    }
    const localRate = median(local, (figures) => figures.perSecond);
    const httpRate = median(http, (figures) => figures.perSecond);
    console.log(
      [
        String(connections).padStart(11),
        localRate.toFixed(0).padStart(20),
        median(local, (figures) => figures.p95Ms).toFixed(1).padStart(8),
        httpRate.toFixed(0).padStart(14),
        median(http, (figures) => figures.p95Ms).toFixed(1).padStart(8),
        `${(httpRate / localRate).toFixed(2)}x`.padStart(19),
      ].join(' '),
    );
  }
}

await main();
