/**
 * `npm test`: every test, in two lanes that run side by side. The integration
 * suite spends much of its time waiting on servers it starts and stops, and the
 * browser tests on a browser, so on a two-core machine the lanes overlap well.
 *
 *   first:  unit tests | the production build (the browser tests' and the server tests' dashboard)
 *   then:   integration (real PostgreSQL) | Python client, then browser tests
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
function lane(name: string, scripts: string[]): Promise<LaneResult> {
  const started = Date.now();
  return (async () => {
    for (const script of scripts) {
      const ok = await runScript(name, script);
      if (!ok) return { name, ok: false, seconds: (Date.now() - started) / 1000 };
    }
    return { name, ok: true, seconds: (Date.now() - started) / 1000 };
  })();
}

function runScript(name: string, script: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], {
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
    ...(await Promise.all([lane('integration', ['test:integration']), lane('browser', ['test:python', 'test:e2e'])])),
  );
}

console.log('');
for (const result of results) {
  console.log(`npm test: ${result.name} ${result.ok ? 'passed' : 'FAILED'} in ${Math.round(result.seconds)} s`);
}
process.exit(results.every((result) => result.ok) ? 0 : 1);
