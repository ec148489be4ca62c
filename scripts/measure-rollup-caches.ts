/**
 * Measurement only (issue 28): what the stored spans buy. On a database built by bench:analytics
 * (BENCH_DATABASE_URL), times the Overview and Steps page read models and the rollup pass with the spans and
 * without them (rollUpAttempts' `without`), configurations interleaved round by round so that the machine's
 * noise falls on both alike. Compare with an earlier version by running its copy of this script on the same
 * database, rounds alternated by hand.
 */
import { sql } from 'drizzle-orm';
import { connectDatabase, type Database } from '@holdfast/engine/db';
import { parseStepsView } from '../lib/filters/steps';
import { getOverview } from '../lib/queries/overview';
import { getStepsPage } from '../lib/queries/steps-page';
import { getTopStepsView } from '../lib/queries/top-steps';
import { rollUpAttempts } from '@holdfast/engine/rollups';
import { HOUR_TURN_PASS_OFFSET_MS } from './lib/hour-turn';

const URL = process.env.BENCH_DATABASE_URL!;
const ROUNDS = Number(process.env.MEASURE_ROUNDS ?? 2);
const RUNS = Number(process.env.MEASURE_RUNS ?? 10);
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const CONFIGS = (process.env.MEASURE_CONFIGS ?? 'spans,none').split(',');
const WITHOUT: Record<string, 'spans'[]> = { spans: [], none: ['spans'] };
const WINDOWS = ['24h', '7d', '30d'] as const;

const p95 = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)]!;
};
const p50 = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;

async function pass(db: Database, now: Date, config: string) {
  const began = performance.now();
  await rollUpAttempts(db, { now, retentionFloor: new Date(now.getTime() - 31 * DAY_MS), without: WITHOUT[config] });
  return performance.now() - began;
}

async function main() {
  const { db, close } = connectDatabase(URL, { maxConnections: 10 });
  const [newest] = await db.execute<{ newest: string }>(sql`select max(started_at)::text as newest from attempts`);
  const now = new Date(new Date(newest!.newest).getTime() + 1_000);
  const [{ steps } = { steps: '?' }] = await db.execute<{ steps: string }>(
    sql`select count(distinct (agent, step))::text as steps from attempt_rollups where grain = 'day'`,
  );
  console.log(`now ${now.toISOString()}, ${steps} steps, ${ROUNDS} rounds x ${RUNS} runs, configs ${CONFIGS}`);
  // Every pass rewrites rows (the open hour's five-minute buckets, the spans), and new attempts fill block ranges of
  // the raw log's time index that only a vacuum summarizes. Where autovacuum is off (as on some benchmark machines),
  // dead rows and unsummarized ranges pile up run after run and the reads slow down for that alone: the database
  // is vacuumed by hand before each configuration is timed, as autovacuum would keep it.
  const [{ autovacuum } = { autovacuum: 'on' }] = await db.execute<{ autovacuum: string }>(sql`show autovacuum`);
  const vacuumIfNeeded = async () => {
    if (autovacuum !== 'on') await db.execute(sql`vacuum (analyze)`);
  };
  if (autovacuum !== 'on') console.log('autovacuum is off: vacuuming before each configuration');
  const samples = new Map<string, number[]>();
  const add = (key: string, ms: number) => samples.set(key, [...(samples.get(key) ?? []), ms]);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const config of CONFIGS) {
      await pass(db, now, config); // stores (or clears) this configuration's caches
      await vacuumIfNeeded();
      add(`${config} minute pass`, await pass(db, now, config));
      for (const window of WINDOWS) {
        const reads = {
          overview: () => Promise.all([getOverview(db, window, now), getTopStepsView(db, window, now)]),
          steps: () => getStepsPage(db, parseStepsView({ window }, now), undefined, now),
        };
        for (const [name, read] of Object.entries(reads)) {
          await read();
          for (let run = 0; run < RUNS; run += 1) {
            const began = performance.now();
            await read();
            add(`${config} ${name} ${window}`, performance.now() - began);
          }
        }
      }
      console.log(`round ${round + 1} ${config} done`);
    }
  }
  for (const [key, values] of samples) {
    console.log(
      `${key.padEnd(28)} p50 ${p50(values).toFixed(0).padStart(6)} p95 ${p95(values).toFixed(0).padStart(6)} (n ${values.length})`,
    );
  }

  // The hour-turn pass: per configuration one untimed hour (so its caches are held and moved, as in steady
  // state), then two timed ones, each after one new hour at the log's rate. MEASURE_FEED=hour (the default)
  // writes the hour's attempts at once before the pass, as bench:analytics' routine pass does; minutes writes
  // them a minute at a time with an untimed pass after each minute, as a deployed sweep (once a minute) meets
  // them, so the timed pass at the hour's turn finds one minute of new attempts.
  if (process.env.MEASURE_HOUR_TURN === '0') return close();
  const feedByMinute = process.env.MEASURE_FEED === 'minutes';
  const [{ perHour } = { perHour: 0 }] = await db.execute<{ perHour: number }>(
    sql`select (count(*) / 720)::int as "perHour" from attempts where started_at >= ${new Date(now.getTime() - 30 * DAY_MS).toISOString()}::timestamptz`,
  );
  const stepCount = Number(steps);
  const writeAttempts = (hourStart: number, first: number, last: number) =>
    db.execute(sql`
      insert into attempts (task_id, agent, step, attempt_number, started_at, finished_at, latency_ms, outcome, error_class, error_text, cost_micros)
      select 'turn-' || ${hourStart}::bigint || '-' || g, 'agent-' || (pair / 5), 'step-' || (pair % 5), attempt_number, started_at,
        started_at + latency_ms * interval '1 millisecond', latency_ms,
        case when failed then 'failed' else 'succeeded' end,
        case when failed then 'transient'::error_class end, case when failed then 'simulated failure' end, cost_micros
      from (
        select g, floor(random() * ${stepCount})::int as pair,
          ${new Date(hourStart).toISOString()}::timestamptz + (g * (3600.0 / ${perHour})) * interval '1 second' as started_at,
          case when random() < 0.75 then 1 when random() < 0.7 then 2 else 3 end as attempt_number,
          random() < 0.12 as failed, floor(exp(random() * 8))::int as latency_ms, floor(random() * 50000)::bigint as cost_micros
        from generate_series(${first}::int, ${last}::int) as g) as generated`);
  const MINUTE_MS = 60_000;
  let hour = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  for (const config of CONFIGS) {
    await vacuumIfNeeded();
    const timed: number[] = [];
    for (let index = 0; index < 3; index += 1) {
      const hourStart = hour;
      hour += HOUR_MS;
      const minutes = feedByMinute ? 60 : 1;
      for (let minute = 0; minute < minutes; minute += 1) {
        const first = Math.floor((minute * perHour) / minutes);
        const last = Math.floor(((minute + 1) * perHour) / minutes) - 1;
        await writeAttempts(hourStart, first, last);
        if (minute < minutes - 1)
          await pass(db, new Date(hourStart + (minute + 1) * MINUTE_MS + HOUR_TURN_PASS_OFFSET_MS), config);
      }
      const ms = await pass(db, new Date(hour + HOUR_TURN_PASS_OFFSET_MS), config);
      if (index > 0) timed.push(ms);
    }
    console.log(
      `${config.padEnd(10)} hour-turn pass (fed by ${feedByMinute ? 'minute' : 'hour'}): ${timed.map((ms) => `${(ms / 1000).toFixed(2)} s`).join(', ')}`,
    );
  }
  await close();
}

await main();
