/**
 * `npm run bench:api`: attempts ingested per second through the HTTP API
 * beside the same work through `packages/engine/src/core` in-process, like with like: single
 * reports (POST /api/v1/attempts) beside single recordAttempt calls, batches
 * of 100 (POST /api/v1/attempts/batch) beside the route's own batch path (all
 * validated, then one transaction), from 1 and 8 concurrent workers; then one
 * step (begin + finish) over HTTP beside runStep. Every comparison runs
 * through one helper: a discarded warm-up round each side, then rounds
 * alternating which side goes first, the median round reported. The load
 * generator (node's http client), the server and PostgreSQL share this
 * machine, so read the ratios.
 *
 * Runs on a throwaway embedded PostgreSQL (or BENCH_DATABASE_URL), serving
 * Holdfast with `npm start`'s script (it builds first if the build is stale).
 * BENCH_SECONDS sets the length of each round (default 5), BENCH_ROUNDS the
 * measured rounds per side (default 3).
 */
import os from 'node:os';
import { authenticateApiToken } from '@holdfast/engine/core';
import { connectDatabase } from '@holdfast/engine/db';
import { migrateDatabase } from '@holdfast/engine/db';
import { attemptsInProcess, attemptsOverHttp, BATCH_SIZE } from './lib/bench-attempts';
import { alternateRounds, medianRound, type Figures } from './lib/bench-compare';
import { benchDatabase, benchServer, createBenchToken } from './lib/bench-setup';
import { stepsInProcess, stepsOverHttp } from './lib/bench-steps';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? process.env.BENCH_STEP_ROUNDS ?? 3);
const WARM_UP_SECONDS = Math.min(2, SECONDS);
const CONNECTIONS = [1, 8];

/** Median rounds of both sides: rate, p95 of a call, and the ratio of the rates. */
function summarize(inProcess: Figures[], http: Figures[]) {
  const local = medianRound(inProcess, (figures) => figures.perSecond);
  const remote = medianRound(http, (figures) => figures.perSecond);
  const p95 = (rounds: Figures[]) => medianRound(rounds, (figures) => figures.p95Ms).p95Ms;
  return { local, remote, localP95: p95(inProcess), remoteP95: p95(http), ratio: remote.perSecond / local.perSecond };
}

async function main() {
  const database = await benchDatabase('bench-api');
  let server: Awaited<ReturnType<typeof benchServer>> | undefined;
  try {
    await migrateDatabase(database.url);
    const token = await createBenchToken(database.url, 'bench', ['ingest']);
    // The in-process side acts as the same token's agent, so it enforces the same limits.
    const setup = connectDatabase(database.url, { maxConnections: 1 });
    const actor = await authenticateApiToken(setup.db, `Bearer ${token}`);
    await setup.close();
    if (!actor) throw new Error('bench:api: the new token did not authenticate');

    server = await benchServer(database.url);
    const rounds = { rounds: ROUNDS, seconds: SECONDS, warmUpSeconds: WARM_UP_SECONDS };

    console.log(
      `Holdfast API benchmark: ${os.cpus().length} CPU(s), Node ${process.version}; load generator, server and PostgreSQL on this machine`,
    );
    console.log(
      `Median of ${ROUNDS} rounds of ${SECONDS} s per side, alternating which side goes first, after a discarded ${WARM_UP_SECONDS} s warm-up round each`,
    );
    console.log();
    console.log(
      'path                     connections   in-process attempts/s   p95 ms   HTTP attempts/s   p95 ms   HTTP / in-process',
    );
    for (const connections of CONNECTIONS) {
      // One pool per connection count, as the server keeps its own for the whole run.
      const pool = connectDatabase(database.url, { maxConnections: connections });
      try {
        for (const batched of [false, true]) {
          const [inProcess, http] = await alternateRounds(
            [
              (seconds) => attemptsInProcess(pool.db, actor, connections, batched, seconds),
              (seconds) => attemptsOverHttp(server!.baseUrl, token, connections, batched, seconds),
            ],
            rounds,
          );
          const figures = summarize(inProcess, http);
          console.log(
            [
              (batched ? `batch of ${BATCH_SIZE}` : 'single report').padEnd(22),
              String(connections).padStart(13),
              figures.local.perSecond.toFixed(0).padStart(23),
              figures.localP95.toFixed(1).padStart(8),
              figures.remote.perSecond.toFixed(0).padStart(17),
              figures.remoteP95.toFixed(1).padStart(8),
              `${(figures.ratio * 100).toFixed(0)}%`.padStart(19),
            ].join(' '),
          );
        }
      } finally {
        await pool.close();
      }
    }

    console.log();
    console.log('One step (begin + finish)');
    console.log('connections   in-process steps/s   p95 ms   HTTP steps/s   p95 ms   HTTP / in-process');
    for (const connections of CONNECTIONS) {
      const [inProcess, http] = await alternateRounds(
        [
          (seconds) => stepsInProcess(database.url, connections, seconds),
          (seconds) => stepsOverHttp(server!.baseUrl, token, connections, seconds),
        ],
        rounds,
      );
      const figures = summarize(inProcess, http);
      console.log(
        [
          String(connections).padStart(11),
          figures.local.perSecond.toFixed(0).padStart(20),
          figures.localP95.toFixed(1).padStart(8),
          figures.remote.perSecond.toFixed(0).padStart(14),
          figures.remoteP95.toFixed(1).padStart(8),
          `${figures.ratio.toFixed(2)}x`.padStart(19),
        ].join(' '),
      );
    }
  } finally {
    await server?.stop();
    await database.stop();
  }
}

await main();
