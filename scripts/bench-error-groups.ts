/**
 * `npm run bench:errors`: the Errors page's read (lib/queries/error-groups.ts) over BENCH_ATTEMPTS attempts
 * (default 10,000,000) in 30 days, for the 24 h, 7 d and 30 d windows, beside two figures measured in the same run:
 * - the raw answer: the same groups computed from the raw log alone (every failure's pattern at read time),
 *   what the page would cost without the rollup pass;
 * - the floor: one bare read of the rows the page sums (no grouping, no join): hours for 24 h; days and the
 *   current day's hours for 7 d and 30 d, the window and as long before it.
 *
 * The log: 200 steps of 20 agents, executions of 1 to 3 attempts; about 14 % of attempts fail, each with one of
 * six error texts per step whose numbers, ids, addresses and hashes vary from failure to failure (about 1,200
 * groups in all). Built with set-based SQL per day partition, then the rollup pass runs once over the 30 days.
 *
 * Timing: one warm-up of each, then BENCH_ROUNDS rounds (default 20, enough for a p95) alternating the order.
 * Runs on a throwaway embedded PostgreSQL (durability off), or BENCH_DATABASE_URL (a log already built is reused).
 */
import os from 'node:os';
import { sql } from 'drizzle-orm';
import { connectDatabase, type Database } from '@holdfast/engine/db';
import { migrateDatabase } from '@holdfast/engine/db';
import { getErrorGroups } from '../lib/queries/error-groups';
import { rollUpAttempts } from '@holdfast/engine/rollups';
import type { TimeWindowName } from '@holdfast/protocol/time-window';
import { describeTimings, medianOf } from './lib/bench-compare';
import { buildDailyLog } from './lib/bench-daily-log';
import { benchDatabase } from './lib/bench-setup';

const ATTEMPTS = Number(process.env.BENCH_ATTEMPTS ?? 10_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const DAYS = 30;
const DAY_MS = 86_400_000;
/** Mean attempts per execution: 0.85 + 2(0.1) + 3(0.05). */
const ATTEMPTS_PER_EXECUTION = 1.2;

const seconds = (since: number) => ((performance.now() - since) / 1_000).toFixed(1);

/** One day's executions, spread over it and over 200 steps; failures carry one of six texts per step. */
async function buildDay(db: Database, dayStart: Date, executions: number, offset: number) {
  await db.execute(sql`
    insert into attempts (task_id, agent, step, attempt_number, started_at, finished_at, latency_ms, outcome, error_class,
      error_text, cost_micros)
    select 'bench-' || (${offset}::bigint + e.g), 'agent-' || (e.g % 20), 'step-' || (e.g % 200), n,
      e.started_at + (n - 1) * interval '20 seconds', e.started_at + (n - 1) * interval '20 seconds' + interval '700 milliseconds', 700,
      case when n < e.tries or e.last_failed then 'failed' else 'succeeded' end,
      case when n < e.tries or e.last_failed
        then (array['transient', 'timeout', 'rate_limited', 'permanent', 'invalid_output', 'permanent']::error_class[])[1 + e.kind] end,
      case when n < e.tries or e.last_failed then (array[
        '503 Service Unavailable from https://api.mail.example/v2/send?id=' || e.g,
        'timed out after ' || (1000 + e.g % 9000) || ' ms talking to 10.0.' || (e.g % 250) || '.7:443',
        '429 Too Many Requests: retry after ' || (e.g % 60) || ' s',
        '400 Bad Request: the recipient address user' || e.g || '@example.com is invalid',
        'model output was not JSON at position ' || (e.g % 500),
        'customer "' || md5(e.g::text) || '" not found'
      ])[1 + e.kind] end,
      floor(random() * 20000)::bigint
    from (
      select g, ${dayStart.toISOString()}::timestamptz + (g * (86400 / ${executions}::float8)) * interval '1 second' as started_at,
        case when r < 0.85 then 1 when r < 0.95 then 2 else 3 end as tries,
        random() < 0.06 as last_failed, (g / 200) % 6 as kind
      from (select g, random() as r from generate_series(0, ${executions - 1}) as g) as numbered
    ) as e, generate_series(1, e.tries) as n`);
}

async function buildLog(url: string, now: Date): Promise<void> {
  const built = await buildDailyLog({
    url,
    now,
    days: DAYS,
    attempts: ATTEMPTS,
    executionsPerDay: Math.floor(ATTEMPTS / ATTEMPTS_PER_EXECUTION / DAYS),
    counted: sql`select count(*)::int as count from attempts where agent like 'agent-%'`,
    buildDay,
  });
  if (!built) return;
  const maintenance = connectDatabase(url, { maxConnections: 1 });
  const [failures] = await maintenance.db.execute<{ count: number }>(
    sql`select count(*)::int as count from attempts where outcome = 'failed'`,
  );
  console.log(`${failures!.count.toLocaleString('en-US')} of them failed`);
  const rolling = performance.now();
  await rollUpAttempts(maintenance.db, { now, retentionFloor: new Date(now.getTime() - (DAYS + 1) * DAY_MS) });
  await maintenance.db.execute(sql`vacuum analyze error_group_hours`);
  await maintenance.db.execute(sql`vacuum analyze error_groups`);
  console.log(`The rollup pass over ${DAYS} days (attempt rollups and error groups) took ${seconds(rolling)} s`);
  await maintenance.close();
}

async function main() {
  const database = await benchDatabase('errors');
  try {
    await migrateDatabase(database.url);
    const now = new Date();
    await buildLog(database.url, now);
    const connection = connectDatabase(database.url, { maxConnections: 2 });
    const settings = await connection.db.execute<{ name: string; setting: string }>(sql`
      select name, setting from pg_settings
      where name in ('server_version', 'work_mem', 'shared_buffers', 'max_parallel_workers_per_gather', 'fsync')`);
    const [groups] = await connection.db.execute<{ n: number }>(sql`select count(*)::int as n from error_groups`);
    console.log(
      `Holdfast Errors page benchmark: ${os.cpus().length} CPU(s), Node ${process.version}; ${groups!.n.toLocaleString('en-US')} groups; PostgreSQL ${settings.map((row) => `${row.name}=${row.setting}`).join(', ')}`,
    );

    for (const window of ['24h', '7d', '30d'] as TimeWindowName[]) {
      const page = () => getErrorGroups(connection.db, { window, now });
      const from = new Date(now.getTime() - { '24h': 1, '7d': 7, '30d': 30 }[window as '24h'] * DAY_MS);
      const at = (date: Date) => sql`${date.toISOString()}::timestamptz`;
      const raw = () =>
        connection.db.execute(sql`
          select holdfast_error_fingerprint(agent, step, error_class, error_text), count(*), count(distinct task_id),
            min(started_at), max(started_at)
          from attempts where outcome = 'failed' and started_at >= ${at(from)} and started_at < ${at(now)}
          group by 1 order by 2 desc limit 100`);
      // The rows the page sums, read bare: the window and as long before it, in days and today's hours
      // for the week and the month, in hours for a day.
      const span = { '24h': 1, '7d': 7, '30d': 30 }[window as '24h'] * DAY_MS;
      const dayStart = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS);
      const floor = () =>
        window === '24h'
          ? connection.db.execute(
              sql`select count(*), sum(failures) from error_group_hours where hour >= ${at(new Date(now.getTime() - 2 * span))}`,
            )
          : connection.db.execute(sql`
              select count(*), sum(failures) from (
                select failures from error_group_days
                where day >= ${at(new Date(dayStart.getTime() - 2 * span))} and day < ${at(dayStart)}
                union all
                select failures from error_group_hours where hour >= ${at(dayStart)}
              ) as rows_read`);
      const jobs = { page, raw, floor } as const;
      // The raw answer takes seconds a round at 30 days: a fifth of the rounds are enough for its median
      // (BENCH_RAW=off leaves it out).
      const rawRounds = process.env.BENCH_RAW === 'off' ? 0 : Math.max(3, Math.ceil(ROUNDS / 5));
      for (const [name, job] of Object.entries(jobs)) if (name !== 'raw' || rawRounds > 0) await job();
      const times = { page: [] as number[], raw: [] as number[], floor: [] as number[] };
      for (let round = 0; round < ROUNDS; round++) {
        const order = (round % 2 === 0 ? ['page', 'raw', 'floor'] : ['floor', 'raw', 'page']) as (keyof typeof jobs)[];
        for (const which of order) {
          if (which === 'raw' && round >= rawRounds) continue;
          const started = performance.now();
          await jobs[which]();
          times[which].push(performance.now() - started);
        }
      }
      const rawPart =
        times.raw.length > 0
          ? `; the raw answer ${describeTimings(times.raw)}; raw / page ${(medianOf(times.raw, (ms) => ms) / medianOf(times.page, (ms) => ms)).toFixed(1)}x`
          : '';
      console.log(
        `${window}: the page ${describeTimings(times.page)}; the floor ${describeTimings(times.floor)}; page / floor ${(medianOf(times.page, (ms) => ms) / medianOf(times.floor, (ms) => ms)).toFixed(1)}x${rawPart}`,
      );
    }
    await connection.close();
  } finally {
    await database.stop();
  }
}

await main();
