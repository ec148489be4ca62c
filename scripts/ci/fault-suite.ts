/**
 * The fault suite (`.ci/run`, after `npm test`): PostgreSQL is killed with
 * SIGKILL under a running Holdfast and started again on the same folder and
 * port, three times — under writers posting attempt batches over HTTP, under
 * a bulk redrive, under a sweep carrying that redrive on. It checks that
 * clients saw 503 and never 500, that every acknowledged batch is in the log
 * exactly once, that an Idempotency-Key in flight at the crash is not refused
 * afterwards, that the server recovered without a restart, and that the
 * redrive finished with exact counts. Writes faults.json ({ passed, failed,
 * skipped }) into $HOLDFAST_TEST_REPORT_DIR; exits 1 on any failed check.
 * Everything it starts (PostgreSQL, the server, a temporary folder) is
 * stopped and removed on the way out, failure or not.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApiToken } from '@holdfast/engine/core';
import { connectDatabase, type DatabaseConnection } from '@holdfast/engine/db';
import { findFreePort } from '@holdfast/engine/db';
import { migrateDatabase } from '@holdfast/engine/db';
import { badUrls } from './faults/scenario-bad-urls';
import { runChecks, type Check } from './faults/checks';
import { startHoldfastServer, type HoldfastServer } from './faults/holdfast-server';
import { createKillablePostgres, type KillablePostgres } from './faults/killable-postgres';
import { outageUnderRedriveAndSweep } from './faults/scenario-redrive';
import { outageUnderWriters } from './faults/scenario-writers';

const SUITE_TIMEOUT_MS = 170_000;
const log = (line: string) => console.log(`[faults ${new Date().toISOString().slice(11, 19)}] ${line}`);

function writeReport(checks: Check[], error?: string): void {
  const reportDir = process.env.HOLDFAST_TEST_REPORT_DIR;
  if (!reportDir) return;
  const failed = checks.filter((check) => !check.ok).length + (error ? 1 : 0);
  fs.mkdirSync(reportDir, { recursive: true });
  fs.writeFileSync(
    path.join(reportDir, 'faults.json'),
    JSON.stringify(
      {
        tool: 'fault-suite',
        passed: checks.length - checks.filter((c) => !c.ok).length,
        failed,
        skipped: 0,
        checks,
        error,
      },
      null,
      2,
    ),
  );
}

async function main(): Promise<number> {
  const started = Date.now();
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'holdfast-faults-'));
  let postgres: KillablePostgres | undefined;
  let server: HoldfastServer | undefined;
  let library: DatabaseConnection | undefined;
  const checks: Check[] = [];
  const cleanUp = async () => {
    await library?.close().catch(() => {});
    await server?.stop().catch(() => {});
    await postgres?.destroy().catch(() => {});
    fs.rmSync(folder, { recursive: true, force: true });
  };
  const onSignal = () => void cleanUp().then(() => process.exit(130));
  // postgres.js can throw from a timer when a connection dies between scheduling a write and
  // making it (socket already null). That is the driver, not the suite: note it and go on.
  process.on('uncaughtException', (error) => {
    if (!String(error.stack).includes('postgres/src/connection.js')) {
      console.error(`[faults] ${error.stack}`);
      writeReport(checks, String(error));
      void cleanUp().then(() => process.exit(1));
      return;
    }
    log(`postgres.js threw from a timer after a lost connection (tolerated): ${error.message}`);
  });
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const timer = setTimeout(() => {
    console.error(`[faults] still running after ${SUITE_TIMEOUT_MS / 1000} s: giving up`);
    writeReport(checks, 'timed out');
    void cleanUp().then(() => process.exit(1));
  }, SUITE_TIMEOUT_MS);

  try {
    postgres = await createKillablePostgres(folder, await findFreePort());
    await postgres.start();
    await migrateDatabase(postgres.url);
    library = connectDatabase(postgres.url, { maxConnections: 4, connectTimeoutSeconds: 2 });
    const { token: ingest } = await createApiToken(
      { db: library.db, actor: admin },
      // The writers measure recovery, not the rate limit: their token's is far above what they send.
      { name: 'fault-suite-ingest', scopes: ['ingest'], ratePerSecond: 100_000, rateBurst: 1_000_000 },
    );
    const { token: read } = await createApiToken(
      { db: library.db, actor: admin },
      { name: 'fault-suite-read', scopes: ['read'] },
    );
    log(`PostgreSQL on port ${postgres.port}; starting Holdfast`);
    server = await startHoldfastServer(postgres.url, await findFreePort(), 120_000);
    log(`Holdfast ready at ${server.baseUrl}`);

    checks.push(...(await badUrls(server.baseUrl, read)));
    checks.push(...(await outageUnderWriters({ postgres, server, db: library.db, ingest, read, log })));
    checks.push(...(await outageUnderRedriveAndSweep({ postgres, db: library.db, log })));
    checks.push(
      ...runChecks('the server', [
        [
          'ran through every outage without a restart',
          server.process.exitCode === null && server.process.signalCode === null,
          `exit ${server.process.exitCode}`,
        ],
      ]),
    );
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    checks.push(
      ...runChecks('the suite', [['finished in under 3 minutes', Date.now() - started < 180_000, `${seconds} s`]]),
    );
    for (const check of checks)
      log(`${check.ok ? 'ok  ' : 'FAIL'} ${check.name}${check.ok ? '' : `: ${check.detail}`}`);
    const failed = checks.filter((check) => !check.ok).length;
    log(`${checks.length - failed} passed, ${failed} failed in ${seconds} s`);
    writeReport(checks);
    return failed === 0 ? 0 : 1;
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    console.error(`[faults] ${message}`);
    if (server) console.error(`[faults] server stderr (tail):\n${server.errors().slice(-2_000)}`);
    writeReport(checks, message);
    return 1;
  } finally {
    clearTimeout(timer);
    await cleanUp();
  }
}

const admin = { type: 'person' as const, id: 'fault-suite@holdfast.local', role: 'admin' as const, teams: [] };

process.exit(await main());
