/**
 * `npm run bench:budgets`: what the fleet's spend budgets cost a new step. Three sides run the same work, a new
 * step begun and finished with runStep (a task of its own each), differing only in how many budgets cover it: none,
 * one (its agent's), three (its agent's, its queue's and its step's); the limits are far above what the run spends,
 * so nothing is refused and the figures are the reservations' own cost. Beside them, the raw ceiling of the same
 * durable work: the bare insert and update of one row a step. Rounds rotate which side goes first, after a discarded
 * warm-up round each; the median round is reported, with the ratio of each budgeted side to the side with none.
 * BENCH_SECONDS (default 2), BENCH_ROUNDS (default 5), BENCH_CLIENTS (default 1,8). Runs on a throwaway embedded
 * PostgreSQL (synchronous_commit off) or on BENCH_DATABASE_URL.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { runStep, saveSpendBudget } from '@holdfast/engine/core';
import { connectDatabase, ensureAttemptPartitions, migrateDatabase } from '@holdfast/engine/db';
import { type Figures, measureLoops, medianRound, rotateRounds } from './lib/bench-compare';
import { benchDatabase } from './lib/bench-setup';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CLIENT_COUNTS = (process.env.BENCH_CLIENTS ?? '1,8').split(',').map(Number);
const ADMIN = {
  type: 'person' as const,
  id: 'bench@holdfast.local',
  email: 'bench@holdfast.local',
  role: 'admin' as const,
  teams: [],
};

/** The sides: an agent each, covered by that many budgets. */
const SIDES = [
  { name: 'no budget', agent: 'bench-none', budgets: 0 },
  { name: '1 budget', agent: 'bench-one', budgets: 1 },
  { name: '3 budgets', agent: 'bench-three', budgets: 3 },
] as const;

async function main() {
  const { url, stop } = await benchDatabase('bench-budgets');
  try {
    await migrateDatabase(url);
    const setup = connectDatabase(url, { maxConnections: 1 });
    // Today's partition and the next days' (the run's attempts land there).
    const today = Date.now();
    await ensureAttemptPartitions(setup.db, {
      from: new Date(today - 86_400_000),
      to: new Date(today + 3 * 86_400_000),
    });
    const admin = { db: setup.db, actor: ADMIN };
    const large = { period: 'day' as const, limitUsd: 1_000_000, reason: 'bench' };
    for (const side of SIDES) {
      const scopes = (['agent', 'queue', 'step'] as const).slice(0, side.budgets);
      for (const scope of scopes) {
        const scopeValue = scope === 'step' ? `${side.agent}-step` : side.agent;
        await saveSpendBudget(admin, { name: `${side.agent} ${scope}`, scope, scopeValue, ...large });
      }
    }
    await setup.sql`create table if not exists bench_raw_steps (id text primary key, status text, result jsonb)`;
    await setup.close();
    console.log(
      `Spend budgets on a new step (runStep: begin and finish): median of ${ROUNDS} rounds of ${SECONDS} s per side, rotated, after a warm-up round each; ${os.cpus().length} CPU(s), Node ${process.version}`,
    );
    console.log('side                  clients     steps/s   vs none   p50/p99 ms');
    for (const clients of CLIENT_COUNTS) {
      const medians = await mediansAt(url, clients);
      const none = medians[0]!.perSecond;
      [...SIDES.map((side) => side.name), 'raw ceiling (2 statements)'].forEach((name, index) => {
        const figures = medians[index]!;
        const ratio = `${((figures.perSecond / none) * 100).toFixed(0)}%`;
        const latency = `${figures.p50Ms.toFixed(2)}/${figures.p99Ms.toFixed(2)}`;
        console.log(
          `${name.padEnd(26)} ${String(clients).padStart(3)} ${figures.perSecond.toFixed(0).padStart(11)} ${ratio.padStart(9)} ${latency.padStart(13)}`,
        );
      });
    }
  } finally {
    await stop();
  }
}

/** The median round of each side (the budgets' sides, then the raw ceiling) from `clients` concurrent loops. */
async function mediansAt(url: string, clients: number): Promise<Figures[]> {
  const connection = connectDatabase(url, { maxConnections: clients });
  await Promise.all(Array.from({ length: clients }, () => connection.sql`select 1`));
  const stepOf = (agent: string) => () =>
    runStep(
      { db: connection.db },
      {
        taskId: randomUUID(),
        agent,
        owner: 'team:platform',
        step: `${agent}-step`,
        content: { n: 1 },
        estimatedCostMicros: 10,
      },
      async () => ({ result: { ok: true }, costMicros: 10 }),
    );
  const raw = async () => {
    const id = randomUUID();
    await connection.sql`insert into bench_raw_steps (id, status) values (${id}, 'running')`;
    await connection.sql`update bench_raw_steps set status = 'done', result = '{"ok":true}' where id = ${id}`;
  };
  const sides = [...SIDES.map((side) => stepOf(side.agent)), raw].map(
    (loop) => (seconds: number) => measureLoops(clients, seconds, loop),
  );
  const rounds = await rotateRounds(sides, { rounds: ROUNDS, seconds: SECONDS }).finally(() => connection.close());
  return rounds.map((side) => medianRound(side, (figures) => figures.perSecond));
}

await main();
