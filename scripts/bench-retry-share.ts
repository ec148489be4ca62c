/**
 * `npm run bench:retry-share`: what setting each attempt's share of retry spend costs the database (the
 * attempts_retry_cost trigger, packages/engine/drizzle/0048), beside the same writes with the trigger off, in the same run: a
 * first attempt (the usual write: one probe says no later attempt exists) and a succeeded retry (its first
 * attempt read in its own partition). Server time per attempt row, identity row included, 20,000 rows a
 * statement, rounds alternated. On a throwaway embedded PostgreSQL, or BENCH_DATABASE_URL (a database it may
 * fill); BENCH_ROUNDS (default 6) measured rounds per side, after a warm-up of each.
 */
import { ensureAttemptPartitions } from '@holdfast/engine/db';
import { connectDatabase } from '@holdfast/engine/db';
import { migrateDatabase } from '@holdfast/engine/db';
import { benchDatabase } from './lib/bench-setup';

const ROWS = 20_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const DAY_MS = 86_400_000;

const database = await benchDatabase('retry-share');
await migrateDatabase(database.url);
const connection = connectDatabase(database.url);
const sql = connection.sql;
// A month of daily partitions, as a deployment keeps: a lookup must find its one partition among them.
await ensureAttemptPartitions(connection.db, {
  from: new Date(Date.now() - 30 * DAY_MS),
  to: new Date(Date.now() + 3 * DAY_MS),
});

/** Microseconds per attempt written (with its identity), for ROWS attempts in one statement. */
async function write(prefix: string, attemptNumber: number, outcome: 'failed' | 'succeeded'): Promise<number> {
  const started = performance.now();
  await sql.unsafe(`
    with identities as (
      insert into attempt_identities (task_id, step, attempt_number, started_at)
      select '${prefix}-' || g, 'step', ${attemptNumber}, now() - interval '${10 - attemptNumber} minutes'
      from generate_series(1, ${ROWS}) g
      returning task_id, started_at)
    insert into attempts (task_id, agent, step, attempt_number, started_at, finished_at, latency_ms, outcome,
      error_class, error_text, cost_micros, source)
    select task_id, 'bench', 'step', ${attemptNumber}, started_at, started_at, 100, '${outcome}',
      ${outcome === 'failed' ? `'transient', '503 from the provider'` : 'null, null'}, 1000, 'library'
    from identities`);
  return ((performance.now() - started) / ROWS) * 1_000;
}

async function round(triggerOn: boolean): Promise<{ first: number; retry: number }> {
  await sql.unsafe(`alter table attempts ${triggerOn ? 'enable' : 'disable'} trigger attempts_retry_cost`);
  const prefix = `${triggerOn ? 'on' : 'off'}-${Math.random().toString(36).slice(2)}`;
  return { first: await write(prefix, 1, 'failed'), retry: await write(prefix, 2, 'succeeded') };
}

try {
  await round(true);
  await round(false);
  const on: { first: number; retry: number }[] = [];
  const off: { first: number; retry: number }[] = [];
  for (let index = 0; index < ROUNDS; index += 1) {
    if (index % 2 === 0) {
      off.push(await round(false));
      on.push(await round(true));
    } else {
      on.push(await round(true));
      off.push(await round(false));
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  console.log('attempt written          with the share (µs/row)   without: the ceiling (µs/row)   added');
  for (const [label, key] of [
    ['a first attempt', 'first'],
    ['a succeeded retry', 'retry'],
  ] as const) {
    const withShare = median(on.map((figures) => figures[key]));
    const ceiling = median(off.map((figures) => figures[key]));
    console.log(
      `${label.padEnd(24)} ${withShare.toFixed(1).padStart(24)} ${ceiling.toFixed(1).padStart(32)}   +${(withShare - ceiling).toFixed(1)} µs (${(withShare / ceiling).toFixed(2)}x)`,
    );
  }
} finally {
  await sql.unsafe('alter table attempts enable trigger attempts_retry_cost');
  await connection.close();
  await database.stop();
}
