/**
 * `npm run bench:simulator`: the retry-policy simulator (packages/engine/src/core/retry/simulate-policy.ts) on one step with
 * BENCH_ATTEMPTS attempts (default 10,000,000) over 30 days, beside, measured in the same run:
 * - its floor: one bare read of the shape rows it sums (execution_shape_hours, no grouping);
 * - the raw ceiling: one bare scan of the same window of the raw log (count and sum of every attempt), the least
 *   a replay of the raw log would read.
 * It also times the rollup pass's work for the shapes: filling them from the whole log once, and rewriting one
 * hour (what a pass does for the hours whose executions changed).
 *
 * The log: executions (a task's pass of the step) of 1 to 4 attempts (75 % one, 17 % two, 6 % three, 2 % four),
 * every attempt but the last failed (transient, timeout or rate limited: why it was retried), the last one
 * succeeded 92 % of the time. Built with set-based SQL per day partition, then VACUUM ANALYZE.
 *
 * Timing: one warm-up of each, then BENCH_ROUNDS rounds (default 10) alternating which goes first; the median
 * and the slowest of each are printed (a p95 needs 20 samples: BENCH_ROUNDS=20). Runs on a throwaway embedded
 * PostgreSQL (durability off), or BENCH_DATABASE_URL (a database it may fill; a log already built is reused).
 */
import os from 'node:os';
import { sql } from 'drizzle-orm';
import { simulateRetryPolicy } from '@holdfast/engine/core';
import { connectDatabase, type Database } from '@holdfast/engine/db';
import { migrateDatabase } from '@holdfast/engine/db';
import { rollExecutionShapes } from '@holdfast/engine/rollups';
import { rollUpAttempts } from '@holdfast/engine/rollups';
import { describeTimings, medianOf } from './lib/bench-compare';
import { buildDailyLog } from './lib/bench-daily-log';
import { benchDatabase } from './lib/bench-setup';

const ATTEMPTS = Number(process.env.BENCH_ATTEMPTS ?? 10_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const DAYS = 30;
const DAY_MS = 86_400_000;
const AGENT = 'bench-agent';
const STEP = 'send_email';
/** Mean attempts per execution under the distribution above: 0.75 + 2(0.17) + 3(0.06) + 4(0.02). */
const ATTEMPTS_PER_EXECUTION = 1.35;

const seconds = (since: number) => ((performance.now() - since) / 1_000).toFixed(1);

/** One day's executions of the step, spread evenly over it, in one statement. */
async function buildDay(db: Database, dayStart: Date, executions: number, offset: number) {
  await db.execute(sql`
    insert into attempts (task_id, agent, step, attempt_number, started_at, finished_at, latency_ms, outcome, error_class,
      error_text, cost_micros)
    select 'bench-' || (${offset}::bigint + e.g), ${AGENT}, ${STEP}, n,
      e.started_at + (n - 1) * interval '30 seconds', e.started_at + (n - 1) * interval '30 seconds' + interval '800 milliseconds', 800,
      case when n < e.tries or e.last_failed then 'failed' else 'succeeded' end,
      case when n < e.tries or e.last_failed
        then (array['transient', 'timeout', 'rate_limited']::error_class[])[1 + ((e.g + n) % 3)] end,
      case when n < e.tries or e.last_failed then 'simulated failure' end,
      floor(random() * 20000)::bigint
    from (
      select g, ${dayStart.toISOString()}::timestamptz + (g * (86400 / ${executions}::float8)) * interval '1 second' as started_at,
        case when r < 0.75 then 1 when r < 0.92 then 2 when r < 0.98 then 3 else 4 end as tries,
        random() < 0.08 as last_failed
      from (select g, random() as r from generate_series(0, ${executions - 1}) as g) as numbered
    ) as e, generate_series(1, e.tries) as n`);
}

const buildLog = (url: string, now: Date) =>
  buildDailyLog({
    url,
    now,
    days: DAYS,
    attempts: ATTEMPTS,
    executionsPerDay: Math.floor(ATTEMPTS / ATTEMPTS_PER_EXECUTION / DAYS),
    counted: sql`select count(*)::int as count from attempts where agent = ${AGENT} and step = ${STEP}`,
    buildDay,
  });

async function main() {
  const database = await benchDatabase('simulator');
  try {
    await migrateDatabase(database.url);
    const now = new Date();
    await buildLog(database.url, now);
    const connection = connectDatabase(database.url, { maxConnections: 2 });
    // The shapes the simulator reads, as the scheduler's rollup pass keeps them: the first pass fills every hour.
    const filling = performance.now();
    await rollUpAttempts(connection.db, { now, retentionFloor: new Date(now.getTime() - (DAYS + 1) * DAY_MS) });
    console.log(`First rollup pass (rollups and shapes of the whole log, or what is new in it): ${seconds(filling)} s`);
    const from = new Date(now.getTime() - DAYS * DAY_MS + 60_000);
    const ctx = { db: connection.db, actor: { type: 'system', id: 'bench' } as const, clock: () => now };
    const simulate = () =>
      simulateRetryPolicy(
        ctx,
        { agent: AGENT, step: STEP, from, to: now, maxAttempts: 2, retriedClasses: ['transient', 'timeout'] },
        { rawRetentionDays: DAYS + 1 },
      );
    const ceiling = () =>
      connection.db.execute(sql`
        select count(*), sum(cost_micros) from attempts
        where agent = ${AGENT} and step = ${STEP} and started_at >= ${from.toISOString()}::timestamptz
          and started_at < ${now.toISOString()}::timestamptz`);
    const floor = () =>
      connection.db.execute(sql`
        select count(*), sum(executions), sum(cost_micros), sum(to_end_ms) from execution_shape_hours
        where agent = ${AGENT} and step = ${STEP} and hour >= ${from.toISOString()}::timestamptz
          and hour < ${now.toISOString()}::timestamptz`);
    // One pass's work for one changed hour (a day ago, so its executions are complete), rolled back.
    const hourAgo = Math.floor((now.getTime() - DAY_MS) / 3_600_000) * 3_600_000;
    const rewriteHour = () =>
      connection.db
        .transaction(async (tx) => {
          await rollExecutionShapes(tx, [hourAgo, hourAgo + 3_600_000]);
          tx.rollback();
        })
        .catch(() => undefined);
    const settings = await connection.db.execute<{ name: string; setting: string }>(sql`
      select name, setting from pg_settings
      where name in ('server_version', 'work_mem', 'shared_buffers', 'max_parallel_workers_per_gather', 'fsync')`);
    console.log(
      `Holdfast simulator benchmark: ${os.cpus().length} CPU(s), Node ${process.version}; PostgreSQL ${settings.map((row) => `${row.name}=${row.setting}`).join(', ')}`,
    );

    const answer = await simulate();
    await ceiling();
    await floor();
    await rewriteHour();
    console.log(
      `Answer: ${answer.executions.toLocaleString('en-US')} executions, ${answer.stoppedEarlier.toLocaleString('en-US')} stopped sooner, ` +
        `${answer.attemptsSaved.toLocaleString('en-US')} attempts and $${(answer.retrySpendSavedMicros / 1e6).toFixed(2)} saved, ` +
        `${answer.successesLost.toLocaleString('en-US')} successes lost`,
    );
    const runs = { simulator: simulate, floor, ceiling, rewriteHour };
    const sides = Object.keys(runs) as (keyof typeof runs)[];
    const times = {
      simulator: [] as number[],
      floor: [] as number[],
      ceiling: [] as number[],
      rewriteHour: [] as number[],
    };
    for (let round = 0; round < ROUNDS; round++) {
      // Each round starts with the next side, so none always runs on a cache the others warmed.
      for (const which of sides.map((_, index) => sides[(index + round) % sides.length]!)) {
        const started = performance.now();
        await runs[which]();
        times[which].push(performance.now() - started);
      }
    }

    console.log(`Simulator, 30 days of one step: ${describeTimings(times.simulator)}`);
    console.log(`Floor (one bare read of the shape rows it sums): ${describeTimings(times.floor)}`);
    console.log(`Raw ceiling (one bare scan of the window's attempts): ${describeTimings(times.ceiling)}`);
    console.log(`One hour's shapes rewritten (a pass's work per changed hour): ${describeTimings(times.rewriteHour)}`);
    const median = (which: keyof typeof times) => medianOf(times[which], (ms) => ms);
    console.log(
      `Simulator / floor: ${(median('simulator') / median('floor')).toFixed(2)}x; simulator / raw scan: ${(median('simulator') / median('ceiling')).toFixed(3)}x (medians)`,
    );
    await connection.close();
  } finally {
    await database.stop();
  }
}

await main();
