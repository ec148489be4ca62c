/**
 * `npm test`: every test, in two lanes that run side by side. The integration
 * suite spends much of its time waiting on servers it starts and stops, and the
 * browser tests on a browser, so on a two-core machine the lanes overlap well.
 *
 *   first:  unit tests | the production build (the browser tests' and the server tests' dashboard)
 *   then:   browser tests | integration (real PostgreSQL), then the Python client
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

/** Runs npm scripts one after another, prefixing their output; stops at the first that fails. */
function lane(name: string, scripts: string[], options: { niceness?: number } = {}): Promise<LaneResult> {
  const started = Date.now();
  return (async () => {
    for (const script of scripts) {
      const ok = await runScript(name, script, options.niceness ?? 0);
      if (!ok) return { name, ok: false, seconds: (Date.now() - started) / 1000 };
    }
    return { name, ok: true, seconds: (Date.now() - started) / 1000 };
  })();
}

function runScript(name: string, script: string, niceness: number): Promise<boolean> {
  return new Promise((resolve) => {
    const npm = ['npm', 'run', '--silent', script];
    const [command, ...args] = niceness > 0 ? ['nice', '-n', String(niceness), ...npm] : npm;
    const child = spawn(command!, args, {
      cwd: projectRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
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

const results: LaneResult[] = [];
results.push(...(await Promise.all([lane('unit', ['test:unit']), buildLane()])));
if (results.every((result) => result.ok)) {
  results.push(
    ...(await Promise.all([
      lane('browser', ['test:e2e']),
      lane('integration', ['test:integration', 'test:python'], { niceness: 5 }),
    ])),
  );
}

console.log('');
for (const result of results) {
  console.log(`npm test: ${result.name} ${result.ok ? 'passed' : 'FAILED'} in ${Math.round(result.seconds)} s`);
}
process.exit(results.every((result) => result.ok) ? 0 : 1);
