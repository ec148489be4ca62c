/**
 * `npm run test:failover` (a stage of `.ci/run` of its own): Holdfast against
 * what production PostgreSQL setups do, on loopback only, from Debian's
 * packages — PgBouncer in transaction mode in front of four instances
 * (failover/scenario-pooler.ts), and a Patroni pair failing over and switching
 * over under keyed writers (failover/scenario-patroni.ts). Prints its figures;
 * writes failover.json ({ passed, failed, skipped }) into
 * $HOLDFAST_TEST_REPORT_DIR; exits 1 on any failed check. `--only pooler` or
 * `--only patroni` runs one. Every process it starts runs in a process group
 * of its own and is killed on the way out, failure, timeout or signal.
 * Needs a production build (`npm run build`).
 */
import { existsSync } from 'node:fs';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureProductionBuild } from '../lib/production-build';
import type { Check } from './faults/checks';
import { PGBOUNCER_BIN } from './failover/pgbouncer';
import { patroniUnavailableReason } from './failover/patroni';
import { POSTGRES_15_BIN } from './failover/postgres-15';
import { stopAllGroups } from './failover/process-groups';
import { killAllHoldfastServers } from './faults/holdfast-server';
import { patroniScenario } from './failover/scenario-patroni';
import { poolerScenario } from './failover/scenario-pooler';

/** A safety net past the suite's usual 2 to 4 minutes on two cores (the build, if one is needed, comes before it). */
const SUITE_TIMEOUT_MS = 480_000;
const projectRoot = path.resolve(import.meta.dirname, '../..');
const log = (line: string) => console.log(`[failover ${new Date().toISOString().slice(11, 19)}] ${line}`);
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;

function writeReport(checks: Check[], skipped: number, error?: string): void {
  const reportDir = process.env.HOLDFAST_TEST_REPORT_DIR;
  if (!reportDir) return;
  const failedChecks = checks.filter((check) => !check.ok).length;
  fs.mkdirSync(reportDir, { recursive: true });
  fs.writeFileSync(
    path.join(reportDir, 'failover.json'),
    JSON.stringify(
      {
        tool: 'failover-suite',
        passed: checks.length - failedChecks,
        failed: failedChecks + (error ? 1 : 0),
        skipped,
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
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'holdfast-failover-'));
  // The postgres user runs the servers and must reach their folders.
  fs.chmodSync(folder, 0o755);
  const checks: Check[] = [];
  let skipped = 0;
  const cleanUp = () => {
    killAllHoldfastServers();
    stopAllGroups();
    fs.rmSync(folder, { recursive: true, force: true });
  };
  const onSignal = (code: number) => () => {
    cleanUp();
    process.exit(code);
  };
  process.once('SIGINT', onSignal(130));
  process.once('SIGTERM', onSignal(143));
  // postgres.js can throw from a timer when a connection dies between scheduling a write and making it: tolerated.
  process.on('uncaughtException', (error) => {
    if (String(error.stack).includes('postgres/src/connection.js'))
      return log(`postgres.js timer error (tolerated): ${error.message}`);
    console.error(`[failover] ${error.stack}`);
    writeReport(checks, skipped, String(error));
    cleanUp();
    process.exit(1);
  });
  ensureProductionBuild(projectRoot, log);
  const timer = setTimeout(() => {
    console.error(`[failover] still running after ${SUITE_TIMEOUT_MS / 1000} s: giving up`);
    writeReport(checks, skipped, 'timed out');
    cleanUp();
    process.exit(1);
  }, SUITE_TIMEOUT_MS);
  try {
    if (only === undefined || only === 'pooler') {
      const missing = [PGBOUNCER_BIN, path.join(POSTGRES_15_BIN, 'postgres')].filter((binary) => !existsSync(binary));
      if (missing.length > 0) {
        log(`skipping the pooler scenario: ${missing.join(', ')} missing`);
        skipped += 1;
      } else {
        const scenarioStarted = Date.now();
        checks.push(...(await poolerScenario(folder, log)));
        log(`pooler scenario: ${((Date.now() - scenarioStarted) / 1000).toFixed(1)} s`);
      }
    }
    if (only === undefined || only === 'patroni') {
      const unavailable = patroniUnavailableReason();
      if (unavailable) {
        log(`skipping the Patroni scenarios: ${unavailable}`);
        skipped += 1;
      } else {
        const scenarioStarted = Date.now();
        checks.push(...(await patroniScenario(folder, log)));
        log(`Patroni scenarios: ${((Date.now() - scenarioStarted) / 1000).toFixed(1)} s`);
      }
    }
    for (const check of checks)
      log(`${check.ok ? 'ok  ' : 'FAIL'} ${check.name}${check.ok ? '' : `: ${check.detail}`}`);
    const failed = checks.filter((check) => !check.ok).length;
    log(
      `${checks.length - failed} passed, ${failed} failed, ${skipped} skipped in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    writeReport(checks, skipped);
    return failed === 0 ? 0 : 1;
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    console.error(`[failover] ${message}`);
    writeReport(checks, skipped, message);
    return 1;
  } finally {
    clearTimeout(timer);
    cleanUp();
  }
}

process.exit(await main());
