/**
 * promtool checks (`.ci/run`, after the fault suite): the Prometheus files in
 * deploy/prometheus and a live scrape of GET /metrics.
 *
 *  - `promtool check rules` and `promtool test rules` on the alert rules;
 *  - `promtool check config` on the example prometheus.yml, copied with its
 *    rules into a temporary folder whose token file stands in for
 *    /etc/prometheus/holdfast-token (promtool insists the file exists);
 *  - `promtool check metrics` on a real scrape: a production server (the
 *    build `npm test` left in .next) on a throwaway PostgreSQL, a few attempts
 *    posted over the API, then GET /metrics with a token of the metrics scope,
 *    its text piped into promtool. The scrape must also name every metric in
 *    packages/engine/src/metrics/catalog.ts with the catalog's type, and refuse a request
 *    without a token.
 *
 * Any problem promtool reports fails the run. Finds promtool on PATH or at
 * /usr/bin/promtool (Debian's `prometheus` package). Writes promtool.json
 * ({ passed, failed, skipped }) into $HOLDFAST_TEST_REPORT_DIR; exits 1 on any
 * failed check. Everything it starts is stopped and removed on the way out.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApiToken } from '@holdfast/engine/core';
import { connectDatabase, type DatabaseConnection } from '@holdfast/engine/db';
import { findFreePort } from '@holdfast/engine/db';
import { migrateDatabase } from '@holdfast/engine/db';
import { metricCatalog } from '@holdfast/engine/metrics';
import { startHoldfastServer, type HoldfastServer } from './faults/holdfast-server';
import { createKillablePostgres, type KillablePostgres } from './faults/killable-postgres';

const projectRoot = path.resolve(import.meta.dirname, '../..');
const deployDir = path.join(projectRoot, 'deploy/prometheus');
const TOKEN_PATH_IN_CONFIG = '/etc/prometheus/holdfast-token';
const SCRIPT_TIMEOUT_MS = 240_000;

/** Stops what the live scrape started; set while it runs (for signals and the time limit). */
let cleanUpLive: (() => Promise<void>) | undefined;

interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

const log = (line: string) => console.log(`[promtool ${new Date().toISOString().slice(11, 19)}] ${line}`);

function findPromtool(): string | undefined {
  const candidates = [
    ...(process.env.PATH ?? '')
      .split(path.delimiter)
      .filter(Boolean)
      .map((dir) => path.join(dir, 'promtool')),
    '/usr/bin/promtool',
  ];
  return candidates.find((candidate) => {
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return fs.statSync(candidate).isFile();
    } catch {
      return false;
    }
  });
}

/** Runs promtool; ok only when it exits 0 and, for `check metrics`, says nothing at all. */
function promtool(
  binary: string,
  name: string,
  args: string[],
  options: { cwd?: string; input?: string; silentWhenOk?: boolean } = {},
): Check {
  const result = spawnSync(binary, args, {
    cwd: options.cwd ?? projectRoot,
    input: options.input,
    encoding: 'utf8',
    timeout: 180_000,
  });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
  const quietEnough = !options.silentWhenOk || output === '';
  const ok = result.status === 0 && quietEnough;
  const shown = output || (result.error ? String(result.error) : `exit ${result.status}`);
  log(`$ promtool ${args.join(' ')}${options.input === undefined ? '' : ' < scrape'}`);
  for (const line of shown.split('\n')) log(`  ${line}`);
  return { name, ok, detail: ok ? shown.split('\n').at(-1)! : `exit ${result.status}: ${shown.slice(0, 2_000)}` };
}

function checkConfig(binary: string): Check {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'holdfast-promtool-'));
  try {
    const tokenFile = path.join(folder, 'holdfast-token');
    fs.writeFileSync(tokenFile, 'hf_placeholder\n', { mode: 0o600 });
    const config = fs.readFileSync(path.join(deployDir, 'prometheus.yml'), 'utf8');
    if (!config.includes(TOKEN_PATH_IN_CONFIG))
      return {
        name: 'promtool check config',
        ok: false,
        detail: `prometheus.yml no longer names ${TOKEN_PATH_IN_CONFIG}`,
      };
    fs.writeFileSync(path.join(folder, 'prometheus.yml'), config.replaceAll(TOKEN_PATH_IN_CONFIG, tokenFile));
    fs.copyFileSync(path.join(deployDir, 'holdfast.rules.yml'), path.join(folder, 'holdfast.rules.yml'));
    return promtool(binary, 'promtool check config (prometheus.yml, token file stood in for)', [
      'check',
      'config',
      path.join(folder, 'prometheus.yml'),
    ]);
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

/** A few attempts (a first try, a failure, a retry) so labelled series appear in the scrape. */
async function postAttempts(baseUrl: string, token: string): Promise<Check> {
  const startedAt = new Date(Date.now() - 2_000).toISOString();
  const finishedAt = new Date().toISOString();
  const attempt = { agent: 'promtool-agent', step: 'scrape_step', startedAt, finishedAt, costMicros: 1_500 };
  const attempts = [
    { ...attempt, taskId: 'promtool-1', attemptNumber: 1, outcome: 'succeeded' },
    {
      ...attempt,
      taskId: 'promtool-2',
      attemptNumber: 1,
      outcome: 'failed',
      errorClass: 'timeout',
      errorText: 'downstream timed out',
    },
    { ...attempt, taskId: 'promtool-2', attemptNumber: 2, outcome: 'succeeded' },
  ];
  const response = await fetch(`${baseUrl}/api/v1/attempts/batch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': 'promtool-1' },
    body: JSON.stringify({ attempts }),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await response.text();
  return {
    name: 'three attempts posted before the scrape',
    ok: response.status === 200,
    detail: `${response.status} ${text.slice(0, 300)}`,
  };
}

/** The scrape's own `# TYPE` lines against the catalog: every metric there, with its type. */
function compareWithCatalog(text: string): Check {
  const samples = text.split('\n').filter((line) => line !== '' && !line.startsWith('#')).length;
  const types = new Map<string, string>();
  for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) types.set(match[1]!, match[2]!);
  const problems = Object.entries(metricCatalog).flatMap(([name, { type }]) =>
    types.get(name) === type ? [] : [`${name}: ${types.get(name) ?? 'missing'} (catalog: ${type})`],
  );
  return {
    name: 'the scrape names every catalog metric with its type',
    ok: problems.length === 0,
    detail: problems.length === 0 ? `${types.size} metric families, ${samples} samples` : problems.join('; '),
  };
}

async function liveScrape(binary: string): Promise<Check[]> {
  if (!fs.existsSync(path.join(projectRoot, '.next/BUILD_ID')))
    return [
      {
        name: 'promtool check metrics on a live scrape',
        ok: false,
        detail: 'no production build in .next (no BUILD_ID): run `npm test` or `npx next build` first',
      },
    ];
  const checks: Check[] = [];
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'holdfast-scrape-'));
  let postgres: KillablePostgres | undefined;
  let server: HoldfastServer | undefined;
  let library: DatabaseConnection | undefined;
  const cleanUp = async () => {
    await library?.close().catch(() => {});
    await server?.stop().catch(() => {});
    await postgres?.destroy().catch(() => {});
    fs.rmSync(folder, { recursive: true, force: true });
  };
  cleanUpLive = cleanUp;
  try {
    postgres = await createKillablePostgres(folder, await findFreePort());
    await postgres.start();
    await migrateDatabase(postgres.url);
    library = connectDatabase(postgres.url, { maxConnections: 2, connectTimeoutSeconds: 5 });
    const ctx = { db: library.db, actor: admin };
    const { token: metrics } = await createApiToken(ctx, { name: 'promtool-metrics', scopes: ['metrics'] });
    const { token: ingest } = await createApiToken(ctx, { name: 'promtool-ingest', scopes: ['ingest'] });
    server = await startHoldfastServer(postgres.url, await findFreePort(), 120_000);
    log(`Holdfast ready at ${server.baseUrl}`);
    checks.push(await postAttempts(server.baseUrl, ingest));

    const anonymous = await fetch(`${server.baseUrl}/metrics`, { signal: AbortSignal.timeout(20_000) });
    await anonymous.text();
    checks.push({
      name: 'GET /metrics without a token is refused',
      ok: anonymous.status === 401,
      detail: `${anonymous.status}`,
    });

    const response = await fetch(`${server.baseUrl}/metrics`, {
      headers: { authorization: `Bearer ${metrics}` },
      signal: AbortSignal.timeout(20_000),
    });
    const text = await response.text();
    const contentType = response.headers.get('content-type') ?? '';
    const scraped = response.status === 200 && contentType.startsWith('text/plain');
    checks.push({
      name: 'GET /metrics with a metrics token answers the text format',
      ok: scraped,
      detail:
        response.status === 404
          ? '404: this build has no /metrics route (app/metrics/route.ts missing, or .next built before it landed)'
          : `${response.status} ${contentType} ${scraped ? `${text.length} bytes` : text.slice(0, 300)}`,
    });
    if (!scraped) return checks;
    // Kept beside the reports, to read what was checked.
    if (process.env.HOLDFAST_TEST_REPORT_DIR)
      fs.writeFileSync(path.join(process.env.HOLDFAST_TEST_REPORT_DIR, 'metrics-scrape.txt'), text);
    checks.push(compareWithCatalog(text));
    checks.push(
      promtool(binary, 'promtool check metrics on a live scrape', ['check', 'metrics'], {
        input: text,
        silentWhenOk: true,
      }),
    );
    return checks;
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    if (server) console.error(`[promtool] server stderr (tail):\n${server.errors().slice(-2_000)}`);
    return [...checks, { name: 'live scrape', ok: false, detail: message }];
  } finally {
    cleanUpLive = undefined;
    await cleanUp();
  }
}

function writeReport(checks: Check[]): void {
  const reportDir = process.env.HOLDFAST_TEST_REPORT_DIR;
  if (!reportDir) return;
  const failed = checks.filter((check) => !check.ok).length;
  fs.mkdirSync(reportDir, { recursive: true });
  fs.writeFileSync(
    path.join(reportDir, 'promtool.json'),
    JSON.stringify({ tool: 'promtool', passed: checks.length - failed, failed, skipped: 0, checks }, null, 2),
  );
}

async function main(): Promise<number> {
  const binary = findPromtool();
  if (!binary) {
    const checks = [
      {
        name: 'promtool found',
        ok: false,
        detail: 'no promtool on PATH or at /usr/bin/promtool: apt-get install prometheus',
      },
    ];
    writeReport(checks);
    console.error(`[promtool] ${checks[0]!.detail}`);
    return 1;
  }
  const version = spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0];
  log(`${binary}: ${version}`);
  const checks: Check[] = [
    promtool(binary, 'promtool check rules', ['check', 'rules', 'holdfast.rules.yml'], { cwd: deployDir }),
    promtool(binary, 'promtool test rules', ['test', 'rules', 'holdfast.rules.test.yml'], { cwd: deployDir }),
    checkConfig(binary),
    ...(await liveScrape(binary)),
  ];
  for (const check of checks)
    log(`${check.ok ? 'ok  ' : 'FAIL'} ${check.name}: ${check.ok ? check.detail.split('\n')[0] : check.detail}`);
  const failed = checks.filter((check) => !check.ok).length;
  log(`${checks.length - failed} passed, ${failed} failed`);
  writeReport(checks);
  return failed === 0 ? 0 : 1;
}

const admin = { type: 'person' as const, id: 'promtool-checks@holdfast.local', role: 'admin' as const, teams: [] };

const stopEverything = (status: number) => void (cleanUpLive?.() ?? Promise.resolve()).then(() => process.exit(status));
process.once('SIGINT', () => stopEverything(130));
process.once('SIGTERM', () => stopEverything(130));
const timer = setTimeout(() => {
  console.error(`[promtool] still running after ${SCRIPT_TIMEOUT_MS / 1000} s: giving up`);
  stopEverything(1);
}, SCRIPT_TIMEOUT_MS);
const status = await main();
clearTimeout(timer);
process.exit(status);
