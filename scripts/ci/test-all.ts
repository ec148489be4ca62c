/**
 * `npm test`: every test, in two lanes that run side by side. The integration
 * suite spends much of its time waiting on servers it starts and stops, and the
 * browser tests on a browser, so on a two-core machine the lanes overlap well.
 *
 *   first:  unit tests | the production build (the browser tests' and the server tests' dashboard)
 *   then:   browser tests | integration (real PostgreSQL), then the Python client, then (when
 *           HOLDFAST_SECOND_TEST_DATABASE_URL names one) integration on a second PostgreSQL
 *
 * The browser tests are the longest lane and the busiest (Chromium, the server and
 * PostgreSQL): the integration lane runs at a lower priority and fills the time they
 * leave, so the two end close together.
 *
 * The build comes first, alone, so that no two suites ever run `next build` at
 * once. Each line of a lane's output carries its name; the last lines give each
 * lane's time and outcome, and the exit code is non-zero if any lane failed.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { isBuildCurrent } from '../lib/production-build';

const projectRoot = path.resolve(import.meta.dirname, '../..');

interface LaneResult {
  name: string;
  ok: boolean;
  seconds: number;
}

/** An npm script, with arguments passed on to it and variables of its own. */
interface Run {
  script: string;
  args?: string[];
  env?: Record<string, string>;
}

/** Runs npm scripts one after another, prefixing their output; stops at the first that fails. */
function lane(name: string, runs: (string | Run)[], options: { niceness?: number } = {}): Promise<LaneResult> {
  const started = Date.now();
  return (async () => {
    for (const run of runs) {
      const ok = await runScript(name, typeof run === 'string' ? { script: run } : run, options.niceness ?? 0);
      if (!ok) return { name, ok: false, seconds: (Date.now() - started) / 1000 };
    }
    return { name, ok: true, seconds: (Date.now() - started) / 1000 };
  })();
}

function runScript(name: string, run: Run, niceness: number): Promise<boolean> {
  return new Promise((resolve) => {
    const npm = ['npm', 'run', '--silent', run.script, ...(run.args ? ['--', ...run.args] : [])];
    const [command, ...args] = niceness > 0 ? ['nice', '-n', String(niceness), ...npm] : npm;
    const child = spawn(command!, args, {
      cwd: projectRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...run.env },
    });
    const prefix = `[${name}] `;
    for (const stream of [child.stdout, child.stderr]) {
      let pending = '';
      stream.on('data', (chunk: Buffer) => {
        pending += chunk.toString('utf8');
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) process.stdout.write(`${prefix}${line}\n`);
      });
      stream.on('end', () => {
        if (pending) process.stdout.write(`${prefix}${pending}\n`);
      });
    }
    child.on('close', (code) => resolve(code === 0));
  });
}

/** `next build` only when the sources changed since the last build (as `npm start` decides). */
function buildLane(): Promise<LaneResult> {
  if (isBuildCurrent(projectRoot)) return Promise.resolve({ name: 'build', ok: true, seconds: 0 });
  return lane('build', ['build']);
}

/**
 * A second PostgreSQL to run the integration suite on as well (CI sets it to the machine's own, another major
 * version than the embedded one): in the integration lane once its own run is done, so that no more than two
 * lanes ever share the machine. Left out there: files that start PostgreSQL servers of their own and never use
 * the one under test, and files whose subject is an agent-side package (the framework adapters, the MCP
 * gateway, the packed clients, the OpenTelemetry SDK's exporter): the statements they cause are the step
 * protocol's and the receiver's, which the remaining files run on that PostgreSQL directly.
 */
const secondDatabaseUrl = process.env.HOLDFAST_SECOND_TEST_DATABASE_URL;
const NOT_ON_THE_SECOND_POSTGRES = [
  'tests/integration/server/read-replica.test.ts',
  'tests/integration/server/service-stop.test.ts',
  'tests/integration/db/embedded-postgres.test.ts',
  'tests/integration/server/start-lifecycle.test.ts',
  'tests/integration/server/start-script.test.ts',
  'tests/integration/server/database-outage.test.ts',
  'tests/integration/traces/otlp-outage.test.ts',
  'tests/integration/adapters/*.test.ts',
  'tests/integration/traces/otlp-ai-sdk.test.ts',
  'tests/integration/fleet/briefing-agent.test.ts',
];

async function integrationLanes(): Promise<LaneResult[]> {
  const own = await lane('integration', ['test:integration', 'test:python'], { niceness: 5 });
  if (!secondDatabaseUrl) return [own];
  const second = await lane(
    'integration-2',
    [
      {
        script: 'test:integration',
        args: NOT_ON_THE_SECOND_POSTGRES.flatMap((file) => ['--exclude', file]),
        env: { TEST_DATABASE_URL: secondDatabaseUrl },
      },
    ],
    { niceness: 5 },
  );
  return [own, second];
}

const results: LaneResult[] = [];
results.push(...(await Promise.all([lane('unit', ['test:unit']), buildLane()])));
if (results.every((result) => result.ok)) {
  const [browser, integration] = await Promise.all([lane('browser', ['test:e2e']), integrationLanes()]);
  results.push(browser, ...integration);
}

console.log('');
for (const result of results) {
  console.log(`npm test: ${result.name} ${result.ok ? 'passed' : 'FAILED'} in ${Math.round(result.seconds)} s`);
}
process.exit(results.every((result) => result.ok) ? 0 : 1);
