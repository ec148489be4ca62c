/**
 * `npm run bench:analytics`: the dashboard's analytics at a given size of
 * attempt log and fleet. What it measures, in order:
 *
 * 1. Building the log: BENCH_ATTEMPTS attempts (default 10,000,000) spread
 *    evenly over 30 days and BENCH_STEPS (agent, step) pairs (default 40; five
 *    steps per agent, so 2,000 pairs are 400 agents) with set-based SQL, then
 *    the first rollup pass over all 720 hours.
 * 2. One Prometheus scrape (GET /metrics' work: packages/engine/src/metrics/scrape.ts with its
 *    cache off), with a realistic load of parked work (holds, dead letters, a
 *    week of sweep leases, retry pools), beside its raw ceiling: the very
 *    statements the scrape sent, captured from drizzle's logger and replayed as
 *    bare SQL. BENCH_ONLY=scrape stops after it.
 * 3. The read models behind the Overview (getOverview and its top steps,
 *    getTopStepsView) and the Steps page (getStepsPage: its first page) for
 *    24 h, 7 d and 30 d, 30 runs each after a warm-up, each beside the same
 *    figures computed by a raw scan of the attempt log in the same run (for
 *    the Steps page, every step's figures with latency; BENCH_RAW_WINDOWS
 *    limits the windows scanned raw) (BENCH_RAW_RUNS runs: default 20, or 5
 *    for the 7 d and 30 d scans above a million attempts, where one run takes
 *    seconds; 0 skips the raw scans).
 * 4. The whole pages over HTTP, server-rendered for a signed-in admin: GET /
 *    (the Overview) and GET /steps, for each window, 20 runs each after a
 *    warm-up, with the size of the HTML.
 * 5. The routine rollup pass: one new hour of attempts at the log's own rate
 *    (attempts / 720), then the pass that rolls it up, timed alone, three times.
 *
 * A figure is called a p95 only when it comes from at least 20 samples; below
 * that it is labelled "max of n". Runs on a throwaway embedded PostgreSQL
 * (defaults except durability), or on BENCH_DATABASE_URL (a database it may
 * fill; it is migrated first, and a log already as large as BENCH_ATTEMPTS is
 * reused, topped up to the present at its own rate: build it with the same
 * BENCH_STEPS).
 */
import os from 'node:os';
import { sql } from 'drizzle-orm';
import type postgres from 'postgres';
import { connectDatabase, type Database, type Executor } from '@holdfast/engine/db';
import { migrateDatabase } from '@holdfast/engine/db';
import { getStepAnomalies } from '../lib/queries/anomalies';
import { parseStepsView } from '../lib/filters/steps';
import { getOverview } from '../lib/queries/overview';
import { scrapeMetrics } from '@holdfast/engine/metrics';
import { readMetrics } from '@holdfast/engine/metrics';
import type { ReadOptions } from '../lib/queries/read-options';
import { getStepStats } from '../lib/queries/step-stats';
import { inOneSnapshot } from '../lib/queries/one-snapshot';
import { getStepsPage } from '../lib/queries/steps-page';
import { getTopStepsView } from '../lib/queries/top-steps';
import { rollUpAttempts } from '@holdfast/engine/rollups';
import { resolveTimeWindow, type TimeWindowName } from '@holdfast/protocol/time-window';
import { benchDatabase, benchServer } from './lib/bench-setup';
import {
  type BenchLog,
  buildAttempts,
  buildSpan,
  LOG_DAYS,
  seedParkedWork,
  topUpToNow,
} from './lib/bench-analytics-log';
import { HOUR_TURN_PASS_OFFSET_MS } from './lib/hour-turn';

const ATTEMPTS = Number(process.env.BENCH_ATTEMPTS ?? 10_000_000);
const LOG: BenchLog = { attempts: ATTEMPTS, stepPairs: Number(process.env.BENCH_STEPS ?? 40) };
const SCRAPE_ONLY = process.env.BENCH_ONLY === 'scrape';
const DAYS = LOG_DAYS;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Routine rollup passes timed at the end, each after one new hour of attempts. */
const ROUTINE_PASSES = 3;
/** Fewer samples than this give no p95 worth the name: the figure is then labelled as the max. */
const P95_MIN_SAMPLES = 20;

/** Windows whose raw scans run (BENCH_RAW_WINDOWS, comma-separated; default all): at 30 M a 30-day scan takes minutes. */
const RAW_WINDOWS = process.env.BENCH_RAW_WINDOWS?.split(',') ?? ['24h', '7d', '30d'];

function rawRuns(window: TimeWindowName): number {
  if (!RAW_WINDOWS.includes(window)) return 0;
  if (process.env.BENCH_RAW_RUNS) return Number(process.env.BENCH_RAW_RUNS);
  return window === '24h' || ATTEMPTS <= 1_000_000 ? 20 : 5;
}

const seconds = (since: number) => ((performance.now() - since) / 1_000).toFixed(1);

interface Timing {
  p50: number;
  /** The p95 when there were at least P95_MIN_SAMPLES samples, else the max. */
  tail: number;
  /** What `tail` is: "p95" or "max of n". */
  tailLabel: string;
}

async function time(runs: number, work: () => Promise<unknown>): Promise<Timing> {
  await work(); // warm: plans cached, pages in memory, as on a dashboard that is in use
  const samples: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const began = performance.now();
    await work();
    samples.push(performance.now() - began);
  }
  samples.sort((a, b) => a - b);
  const at = (share: number) => samples[Math.min(samples.length - 1, Math.ceil(share * samples.length) - 1)]!;
  return runs >= P95_MIN_SAMPLES
    ? { p50: at(0.5), tail: at(0.95), tailLabel: 'p95' }
    : { p50: at(0.5), tail: samples.at(-1)!, tailLabel: `max of ${runs}` };
}

/** What the Overview page reads: the figures and charts, and its top steps panel. */
function overviewQueries(db: Executor, window: TimeWindowName, now: Date, options: ReadOptions) {
  return Promise.all([getOverview(db, window, now, options), getTopStepsView(db, window, now, options)]);
}

/**
 * What the Steps page reads (its first page, sorted by retry spend); the raw
 * side computes every step's figures, latency included, from the raw log.
 */
function stepsPageQueries(db: Executor, window: TimeWindowName, now: Date, options: ReadOptions) {
  if (options.rawOnly) {
    return Promise.all([getStepStats(db, resolveTimeWindow(window, now), options), getStepAnomalies(db, now, options)]);
  }
  return getStepsPage(db, parseStepsView({ window }, now), undefined, now);
}

/**
 * The scrape with its cache off, and its raw ceiling: the statements one
 * scrape sent (captured from drizzle's logger) replayed bare through the same
 * driver, side by side as the scrape runs them. What is left between the two
 * is the query building, the per-pool round trips and prom-client's rendering.
 */
async function timeScrape(url: string, db: Database, now: Date) {
  const scrape = await time(30, () => scrapeMetrics(db, { clock: () => now, maxAgeMs: 0 }));
  const captured: { query: string; params: unknown[] }[] = [];
  const capturing = connectDatabase(url, {
    maxConnections: 10,
    logger: { logQuery: (query, params) => void captured.push({ query, params }) },
  });
  try {
    await readMetrics(capturing.db, now);
  } finally {
    await capturing.close();
  }
  const bare = connectDatabase(url, { maxConnections: 10 });
  try {
    const ceiling = await time(30, () =>
      Promise.all(
        captured.map(({ query, params }) =>
          bare.sql.unsafe(query, params as postgres.ParameterOrJSON<never>[], { prepare: true }),
        ),
      ),
    );
    const text = await scrapeMetrics(db, { clock: () => now, maxAgeMs: 0 });
    const series = text.split('\n').filter((line) => line !== '' && !line.startsWith('#')).length;
    return { scrape, ceiling, statements: captured.length, series, bytes: text.length };
  } finally {
    await bare.close();
  }
}

interface PageTiming extends Timing {
  path: string;
  status: number;
  /** The HTML's size: what the server rendered and sent. */
  bytes: number;
}

/** The pages timed over HTTP, each window in turn (24 h is what a bare `/` or `/steps` shows). */
const PAGES = ['/', '/?window=7d', '/?window=30d', '/steps', '/steps?window=7d', '/steps?window=30d'];

/** Starts `npm start`'s server on the bench database and times the Overview and the Steps page as a signed-in admin. */
async function timePages(url: string, catchUp: () => Promise<void>): Promise<PageTiming[]> {
  const server = await benchServer(url, { HOLDFAST_ATTEMPT_RETENTION_DAYS: String(DAYS + 5) });
  try {
    await catchUp();
    const timings: PageTiming[] = [];
    for (const path of PAGES) {
      let status = 0;
      let bytes = 0;
      const timing = await time(20, async () => {
        const response = await fetch(`${server.baseUrl}${path}`, { headers: server.signInHeaders });
        status = response.status;
        bytes = (await response.text()).length;
      });
      timings.push({ ...timing, path, status, bytes });
    }
    return timings;
  } finally {
    await server.stop();
  }
}

/**
 * The sweep's routine work: one new hour of attempts at the seed's rate
 * (attempts / 720), then the pass that rolls that hour up (and re-rolls
 * nothing else: no late rows). The hour `now` falls in is rolled first,
 * untimed (it holds part of the seed); then each of the next hours is
 * inserted (untimed) and its pass timed alone.
 */
async function timeRoutinePasses(db: Database, now: Date): Promise<number[]> {
  const perHour = Math.floor(ATTEMPTS / (DAYS * 24));
  const retentionFloor = new Date(now.getTime() - (DAYS + 1) * DAY_MS);
  const openHour = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  await rollUpAttempts(db, { now: new Date(openHour + HOUR_MS), retentionFloor });
  const passes: number[] = [];
  for (let pass = 1; pass <= ROUTINE_PASSES; pass += 1) {
    const hourStart = openHour + pass * HOUR_MS;
    // Task ids apart from the seed's and from any earlier run's on a reused database.
    await buildSpan(LOG, db, new Date(hourStart), HOUR_MS, perHour, hourStart);
    const began = performance.now();
    const result = await rollUpAttempts(db, {
      now: new Date(hourStart + HOUR_MS + HOUR_TURN_PASS_OFFSET_MS),
      retentionFloor,
    });
    passes.push(performance.now() - began);
    if (result.hoursRolled !== 1) console.log(`(routine pass ${pass} rolled ${result.hoursRolled} hours)`);
  }
  // Leave the database as a reading at `now` finds it, for the next run to reuse: the passes' hours lie in the
  // future, and rollups whose edge is ahead of the clock would leave readers no stored span that fits.
  await db.execute(
    sql`delete from attempts where started_at >= ${new Date(openHour + HOUR_MS).toISOString()}::timestamptz`,
  );
  await db.execute(sql`update rollup_state set rolled_to = ${new Date(openHour).toISOString()}::timestamptz`);
  await rollUpAttempts(db, { now, retentionFloor });
  return passes;
}

async function main() {
  const { url, stop } = await benchDatabase('bench-analytics');
  try {
    await migrateDatabase(url);
    console.log(
      `Holdfast analytics benchmark: ${ATTEMPTS.toLocaleString('en-US')} attempts, ${LOG.stepPairs} steps, ${os.cpus().length} CPU(s), Node ${process.version}`,
    );
    const now = await buildAttempts(LOG, url);

    const connection = connectDatabase(url, { maxConnections: 10 });
    const { db } = connection;
    try {
      const rolled = performance.now();
      const rollup = await rollUpAttempts(db, { now, retentionFloor: new Date(now.getTime() - (DAYS + 1) * DAY_MS) });
      console.log(`First rollup pass: ${rollup.hoursRolled} hours in ${seconds(rolled)} s`);
      await db.execute(
        sql`analyze attempt_rollups; analyze attempt_latency_rollups; analyze all_steps_rollups; analyze span_rollups; analyze span_latency_rollups`,
      );
      await seedParkedWork(db, now);

      const scraped = await timeScrape(url, db, now);
      console.log('');
      console.log(
        `Prometheus scrape (cache off, ${scraped.series} series, ${(scraped.bytes / 1024).toFixed(0)} KiB): p50 ${scraped.scrape.p50.toFixed(1)} ms, ${scraped.scrape.tailLabel} ${scraped.scrape.tail.toFixed(1)} ms; ` +
          `raw ceiling (its ${scraped.statements} statements bare, side by side): p50 ${scraped.ceiling.p50.toFixed(1)} ms, ${scraped.ceiling.tailLabel} ${scraped.ceiling.tail.toFixed(1)} ms`,
      );
      if (SCRAPE_ONLY) return;

      console.log('');
      console.log(
        [
          'query'.padEnd(20),
          'window'.padStart(6),
          'rollups p50/tail ms'.padStart(26),
          'raw scan p50/tail ms'.padStart(27),
          'raw/rollups (p50)'.padStart(18),
        ].join(' '),
      );
      for (const window of ['24h', '7d', '30d'] as const) {
        for (const [name, query, rawToo] of [
          ['overview', (options: ReadOptions) => overviewQueries(db, window, now, options), true],
          // As the pages read them: in one snapshot (lib/queries/one-snapshot.ts), the statements queued on one connection.
          [
            'overview, 1 snapshot',
            (options: ReadOptions) =>
              inOneSnapshot<unknown>(db, (snapshot) => overviewQueries(snapshot, window, now, options)),
            false,
          ],
          ['steps page', (options: ReadOptions) => stepsPageQueries(db, window, now, options), true],
          [
            'steps, 1 snapshot',
            (options: ReadOptions) =>
              inOneSnapshot<unknown>(db, (snapshot) => stepsPageQueries(snapshot, window, now, options)),
            false,
          ],
        ] as const) {
          const served = await time(30, () => query({}));
          const runs = rawToo ? rawRuns(window) : 0;
          const raw = runs > 0 ? await time(runs, () => query({ rawOnly: true })) : undefined;
          console.log(
            [
              name.padEnd(20),
              window.padStart(6),
              `${served.p50.toFixed(1)}/${served.tail.toFixed(1)} (${served.tailLabel})`.padStart(26),
              (raw ? `${raw.p50.toFixed(0)}/${raw.tail.toFixed(0)} (${raw.tailLabel})` : 'not run').padStart(27),
              (raw ? `${(raw.p50 / served.p50).toFixed(raw.p50 < 10 * served.p50 ? 1 : 0)}x` : '').padStart(18),
            ].join(' '),
          );
        }
      }
    } finally {
      await connection.close();
    }

    // The server reads at its own clock and runs no sweeps: minutes after `now` (a first pass at 2,000 steps takes
    // ten), it would find rollups as a Holdfast whose sweep had stopped does. So once it is up the log is topped up
    // to the present and rolled up, as the every-minute sweep of a running Holdfast keeps it.
    let pagesNow = now;
    const catchUp = async () => {
      pagesNow = await topUpToNow(LOG, url, now);
      const pass = connectDatabase(url, { maxConnections: 1 });
      try {
        const retentionFloor = new Date(pagesNow.getTime() - (DAYS + 1) * DAY_MS);
        await rollUpAttempts(pass.db, { now: pagesNow, retentionFloor });
      } finally {
        await pass.close();
      }
    };
    console.log('');
    console.log('Pages over HTTP (signed in as an admin, server-rendered, 20 runs each after a warm-up):');
    for (const page of await timePages(url, catchUp)) {
      console.log(
        `  GET ${page.path.padEnd(18)} p50 ${page.p50.toFixed(0).padStart(5)} ms, ${page.tailLabel} ${page.tail.toFixed(0).padStart(5)} ms, ${(page.bytes / 1024).toFixed(0).padStart(5)} KiB (HTTP ${page.status})`,
      );
    }

    // Last: it adds hours after `now`, which the reads above must not see.
    const routine = connectDatabase(url, { maxConnections: 1 });
    try {
      const passes = await timeRoutinePasses(routine.db, pagesNow);
      console.log('');
      console.log(
        `Routine rollup pass (one new hour of ${Math.floor(ATTEMPTS / (DAYS * 24)).toLocaleString('en-US')} attempts): ${passes.map((ms) => `${ms.toFixed(0)} ms`).join(', ')}`,
      );
    } finally {
      await routine.close();
    }
  } finally {
    await stop();
  }
}

await main();
