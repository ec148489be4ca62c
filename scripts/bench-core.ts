/**
 * `npm run bench:core`: throughput and latency of the core library's hot calls,
 * each beside its raw ceiling: the same statements as bare SQL through the
 * same driver, in the same run, on the same database. Machines here are shared
 * and noisy, so read the ratios rather than the absolute figures.
 *
 * Runs on a throwaway embedded PostgreSQL (synchronous_commit off, so the
 * figures show the library's own cost rather than the disk's), or on
 * BENCH_DATABASE_URL (a database it may fill; it is migrated first).
 * BENCH_SECONDS sets the length of each round (default 1), BENCH_ROUNDS the
 * measured rounds per side (default 5). Each side gets a discarded warm-up
 * round, then the rounds alternate which side goes first (scripts/lib/bench-compare).
 * BENCH_ONLY names the operations to run (comma-separated, e.g. recordAttempt)
 * and BENCH_CLIENTS the client counts (default 1,8), for a shorter look at one.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { acquireSlot, claimKey, completeKey, recordAttempt } from '@holdfast/engine/core';
import { ensureAttemptPartitions } from '@holdfast/engine/db';
import { connectDatabase, type DatabaseConnection } from '@holdfast/engine/db';
import { migrateDatabase } from '@holdfast/engine/db';
import { alternateRounds, measureLoops, medianRound, type Figures } from './lib/bench-compare';
import { benchDatabase } from './lib/bench-setup';
import type postgres from 'postgres';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 1);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CLIENT_COUNTS = (process.env.BENCH_CLIENTS ?? '1,8').split(',').map(Number);
const ONLY = process.env.BENCH_ONLY?.split(',').map((name) => name.trim());

type Operation = (connection: DatabaseConnection, id: string) => Promise<unknown>;

interface Benchmark {
  name: string;
  library: Operation;
}

const started = new Date();
const finished = new Date(started.getTime() + 1_250);

const allBenchmarks: Benchmark[] = [
  {
    name: 'recordAttempt',
    library: ({ db }, id) =>
      recordAttempt(
        { db },
        {
          taskId: id,
          agent: 'bench',
          step: 'step',
          attemptNumber: 1,
          startedAt: started,
          finishedAt: finished,
          outcome: 'succeeded',
          costMicros: 1_000,
        },
      ),
  },
  {
    name: 'claimKey+completeKey',
    library: async ({ db }, id) => {
      const claim = await claimKey({ db }, { key: id, requestHash: 'h' });
      if (claim.outcome !== 'acquired') throw new Error('bench: expected to acquire');
      await completeKey({ db }, { key: id, fencingToken: claim.fencingToken, result: { ok: true } });
    },
  },
  {
    name: 'acquireSlot',
    library: ({ db }, id) => acquireSlot({ db }, { slot: id, runKey: 'run', ttlMs: 60_000 }),
  },
];

const benchmarks = ONLY ? allBenchmarks.filter((benchmark) => ONLY.includes(benchmark.name)) : allBenchmarks;
if (benchmarks.length === 0)
  throw new Error(`bench: BENCH_ONLY names no operation (${allBenchmarks.map((b) => b.name).join(', ')})`);

/**
 * The raw ceiling of an operation: the very statements the library sent for
 * one call, captured from drizzle's logger, replayed as bare prepared SQL with
 * only the operation's id changed. What remains between the two is the
 * library's own cost (validation, query building, result mapping).
 */
async function rawCeilingOf(url: string, benchmark: Benchmark): Promise<Operation> {
  const captured: { query: string; params: unknown[] }[] = [];
  const capturing = connectDatabase(url, {
    maxConnections: 1,
    logger: { logQuery: (query, params) => void captured.push({ query, params }) },
  });
  const sampleId = randomUUID();
  try {
    await benchmark.library(capturing, sampleId);
  } finally {
    await capturing.close();
  }
  return async ({ sql }, id) => {
    for (const { query, params } of captured) {
      const values = params.map((param) => (param === sampleId ? id : param)) as postgres.ParameterOrJSON<never>[];
      await sql.unsafe(query, values, { prepare: true });
    }
  };
}

/** Runs `operation` from `clients` concurrent loops for `seconds`, each on its own connection. */
function measure(
  connection: DatabaseConnection,
  clients: number,
  operation: Operation,
  seconds: number,
): Promise<Figures> {
  return measureLoops(clients, seconds, () => operation(connection, randomUUID()));
}

async function main() {
  const { url, stop } = await benchDatabase('bench-core');
  try {
    await migrateDatabase(url);
    // The attempt log as `npm start` keeps it: a daily partition for each retained day
    // and a few ahead, so recordAttempt's look for an earlier report spans all of them.
    const setup = connectDatabase(url, { maxConnections: 1 });
    await ensureAttemptPartitions(setup.db, {
      from: new Date(Date.now() - 30 * 86_400_000),
      to: new Date(Date.now() + 3 * 86_400_000),
    });
    await setup.close();
    console.log(
      `Holdfast core benchmark: median of ${ROUNDS} rounds of ${SECONDS} s per side, alternating which side goes first, after a discarded warm-up round each; ${os.cpus().length} CPU(s), Node ${process.version}`,
    );
    console.log(
      'operation               clients   library ops/s   raw ops/s   ratio   library p50/p99 ms   raw p50/p99 ms',
    );
    const rawOperations = new Map<string, Operation>();
    for (const benchmark of benchmarks) rawOperations.set(benchmark.name, await rawCeilingOf(url, benchmark));
    for (const clients of CLIENT_COUNTS) {
      const connection = connectDatabase(url, { maxConnections: clients });
      try {
        await Promise.all(Array.from({ length: clients }, () => connection.sql`select 1`));
        for (const benchmark of benchmarks) {
          const raw = rawOperations.get(benchmark.name)!;
          const [libraryRounds, rawRounds] = await alternateRounds(
            [
              (seconds) => measure(connection, clients, benchmark.library, seconds),
              (seconds) => measure(connection, clients, raw, seconds),
            ],
            { rounds: ROUNDS, seconds: SECONDS },
          );
          const library = medianRound(libraryRounds, (figures) => figures.perSecond);
          const ceiling = medianRound(rawRounds, (figures) => figures.perSecond);
          console.log(
            [
              benchmark.name.padEnd(22),
              String(clients).padStart(8),
              library.perSecond.toFixed(0).padStart(15),
              ceiling.perSecond.toFixed(0).padStart(11),
              `${((library.perSecond / ceiling.perSecond) * 100).toFixed(0)}%`.padStart(7),
              `${library.p50Ms.toFixed(2)}/${library.p99Ms.toFixed(2)}`.padStart(20),
              `${ceiling.p50Ms.toFixed(2)}/${ceiling.p99Ms.toFixed(2)}`.padStart(16),
            ].join(' '),
          );
        }
      } finally {
        await connection.close();
      }
    }
  } finally {
    await stop();
  }
}

await main();
