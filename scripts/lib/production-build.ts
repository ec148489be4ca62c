import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** What the production build is made from; a change to any of these calls for a new build. */
const BUILD_INPUTS = [
  'app',
  'components',
  'lib',
  path.join('packages', 'protocol', 'src'),
  'public',
  path.join('packages', 'engine', 'src'),
  path.join('packages', 'engine', 'drizzle'),
  'next.config.ts',
  'proxy.ts',
  'postcss.config.mjs',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  path.join('packages', 'client', 'src'),
];

/**
 * Folders under the inputs that the dashboard never loads: the framework adapters ship in the client
 * package only (a layer rule in .dependency-cruiser.cjs keeps the app from importing them), so editing
 * one does not make the build stale. The client's other sources are an input: the demo fleet loads them.
 */
const NOT_BUILD_INPUTS = new Set([path.join('packages', 'client', 'src', 'adapters')]);

function newestModification(entry: string, projectRoot: string): number {
  if (NOT_BUILD_INPUTS.has(path.relative(projectRoot, entry))) return 0;
  const stat = fs.statSync(entry, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const child of fs.readdirSync(entry)) {
    newest = Math.max(newest, newestModification(path.join(entry, child), projectRoot));
  }
  return newest;
}

/** True when .next holds a complete build that is newer than every source file. */
export function isBuildCurrent(projectRoot: string): boolean {
  const buildId = fs.statSync(path.join(projectRoot, '.next', 'BUILD_ID'), { throwIfNoEntry: false });
  if (!buildId) return false;
  const newestSource = Math.max(
    ...BUILD_INPUTS.map((entry) => newestModification(path.join(projectRoot, entry), projectRoot)),
  );
  return buildId.mtimeMs >= newestSource;
}

/**
 * Runs `next build` when the build is missing or older than the sources. Several processes may ask
 * at once (test files side by side, each starting a server): one builds under a lock in .next's
 * parent folder while the others wait, then find the build current.
 */
export function ensureProductionBuild(projectRoot: string, log: (line: string) => void): void {
  if (isBuildCurrent(projectRoot)) return;
  withBuildLock(projectRoot, log, () => {
    if (isBuildCurrent(projectRoot)) return; // another process built it while this one waited
    log('Building the dashboard (only when the sources changed since the last build)...');
    const started = Date.now();
    const result = spawnSync(path.join(projectRoot, 'node_modules', '.bin', 'next'), ['build'], {
      cwd: projectRoot,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
    });
    if (result.status !== 0) {
      throw new Error('`next build` failed; see its output above');
    }
    log(`Built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });
}

/** A folder made with mkdir (atomic) holding the builder's pid; a lock whose builder is gone is taken over. */
function withBuildLock(projectRoot: string, log: (line: string) => void, build: () => void): void {
  const lockDir = path.join(projectRoot, '.next-build-lock');
  let waiting = false;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      fs.writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (builderGone(lockDir)) {
      fs.rmSync(lockDir, { recursive: true, force: true });
      continue;
    }
    if (!waiting) log('Waiting for the build another process is making...');
    waiting = true;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500); // a synchronous sleep
  }
  try {
    build();
  } finally {
    fs.rmSync(lockDir, { recursive: true, force: true });
  }
}

function builderGone(lockDir: string): boolean {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(path.join(lockDir, 'pid'), 'utf8'));
  } catch {
    const made = fs.statSync(lockDir, { throwIfNoEntry: false });
    // Released meanwhile (try again), or made but its pid not yet written: gone only if it stays so.
    return made !== undefined && Date.now() - made.mtimeMs > 10_000;
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
