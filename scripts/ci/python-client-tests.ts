/**
 * `npm run test:python`: the Python client's unittest suite (clients/python)
 * against a live Holdfast. Starts a throwaway server the way the browser
 * tests do (the production build, served by `npm start`'s script, on an
 * ephemeral embedded PostgreSQL, no demo data, no fleet, no sweeps), creates
 * an API token with the ingest scope through the library, runs
 * `python3 -m unittest discover -s clients/python -v` with HOLDFAST_URL and
 * HOLDFAST_TOKEN set, writes `python.json` (passed, failed, skipped) into
 * $HOLDFAST_TEST_REPORT_DIR when it is set, stops the server with SIGTERM and
 * exits with unittest's exit code.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApiToken } from '@holdfast/engine/core';
import { connectDatabase } from '@holdfast/engine/db';
import { findFreePort } from '@holdfast/engine/db';
import { aSpentQueueBudget } from '../../tests/support/spent-budget';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const runtimeFile = path.join(projectRoot, '.data/python-tests/runtime.json');
const reportDir = process.env.HOLDFAST_TEST_REPORT_DIR;
// The first start may build the dashboard (two cores: minutes).
const READY_TIMEOUT_MS = Number(process.env.HOLDFAST_PYTHON_TESTS_READY_TIMEOUT_MS ?? 900_000);
const log = (line: string) => console.log(`[python-tests] ${line}`);

interface Summary {
  passed: number;
  failed: number;
  skipped: number;
}

function writeReport(summary: Summary & { error?: string }): void {
  if (!reportDir) return;
  fs.mkdirSync(reportDir, { recursive: true });
  fs.writeFileSync(path.join(reportDir, 'python.json'), JSON.stringify({ tool: 'unittest', ...summary }, null, 2));
}

/** unittest's closing lines, e.g. "Ran 14 tests in 2.1s" then "FAILED (failures=1, skipped=2)" or "OK". */
function parseUnittestSummary(output: string): Summary | undefined {
  const ran = /^Ran (\d+) tests? in /m.exec(output);
  if (!ran) return undefined;
  const count = (name: string) => Number(new RegExp(`[(, ]${name}=(\\d+)`).exec(output.slice(ran.index))?.[1] ?? 0);
  const failed = count('failures') + count('errors') + count('unexpected successes');
  const skipped = count('skipped');
  return { passed: Number(ran[1]) - failed - skipped, failed, skipped };
}

async function waitUntilHealthy(baseUrl: string, server: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (server.exitCode !== null)
      throw new Error(`the server exited (${server.exitCode}) before it was ready; see its output above`);
    try {
      if ((await fetch(`${baseUrl}/api/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  throw new Error(`the server was not healthy after ${READY_TIMEOUT_MS / 1_000} s`);
}

async function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGTERM');
  const timer = setTimeout(() => server.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

/** An ingest token, and two queues under fleet spend budgets spent for today: one that waits, one that stops. */
async function prepareServer(): Promise<Record<string, string>> {
  const { databaseUrl } = JSON.parse(fs.readFileSync(runtimeFile, 'utf8')) as { databaseUrl: string };
  const connection = connectDatabase(databaseUrl, { maxConnections: 1 });
  try {
    const { token } = await createApiToken(
      { db: connection.db, actor: { type: 'person', id: 'python-tests@holdfast.local', role: 'admin', teams: [] } },
      { name: 'python-client-tests', scopes: ['ingest'] },
    );
    return {
      HOLDFAST_TOKEN: token,
      HOLDFAST_SPENT_WAIT_QUEUE: (await aSpentQueueBudget(connection, 'wait')).queue,
      HOLDFAST_SPENT_STOP_QUEUE: (await aSpentQueueBudget(connection, 'stop')).queue,
    };
  } finally {
    await connection.close();
  }
}

function runUnittest(env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const python = spawn('python3', ['-m', 'unittest', 'discover', '-s', 'clients/python', '-v'], {
      cwd: projectRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    let output = '';
    python.stderr.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk);
      output += chunk.toString();
    });
    python.once('error', reject);
    python.once('exit', (code) => resolve({ code: code ?? 1, output }));
  });
}

async function main(): Promise<number> {
  const port = Number(process.env.HOLDFAST_PYTHON_TESTS_PORT ?? (await findFreePort()));
  const baseUrl = `http://127.0.0.1:${port}`;
  fs.rmSync(runtimeFile, { force: true });
  log(`Starting a throwaway Holdfast on ${baseUrl}`);
  // `node --import tsx`, not the tsx CLI: the CLI SIGKILLs its child when the child does not
  // acknowledge a relayed SIGTERM within 30 ms, and start.ts replaces the listener that would,
  // so its shutdown (stop PostgreSQL, wipe the ephemeral data) would be cut short.
  const server = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts', '--ephemeral'], {
    cwd: projectRoot,
    env: {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: '',
      HOLDFAST_DATA_DIR: '.data/python-tests/postgres',
      HOLDFAST_RUNTIME_FILE: runtimeFile,
      HOLDFAST_DEMO_DATA: 'off',
      HOLDFAST_DEMO: 'off',
      // A sweep could settle or escalate a key a test is looking at; the tests are of the API.
      HOLDFAST_SWEEP_INTERVAL_SECONDS: '0',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const onSignal = () => void stopServer(server).then(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    await waitUntilHealthy(baseUrl, server);
    const prepared = await prepareServer();
    log('Server healthy, ingest token and spent budgets made; running unittest');
    const { code, output } = await runUnittest({ HOLDFAST_URL: baseUrl, ...prepared, HOLDFAST_REQUIRE_SERVER: '1' });
    const summary = parseUnittestSummary(output);
    writeReport(summary ?? { passed: 0, failed: 1, skipped: 0, error: 'unittest printed no summary' });
    log(
      summary
        ? `${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped`
        : 'unittest printed no summary',
    );
    return summary ? code : code || 1;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    console.error(`[python-tests] ${message}`);
    writeReport({ passed: 0, failed: 1, skipped: 0, error: message });
    return 1;
  } finally {
    await stopServer(server);
    log('Server stopped');
  }
}

process.exit(await main());
