import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** What the production build is made from; a change to any of these calls for a new build. */
const BUILD_INPUTS = [
  'app',
  'components',
  'lib',
  'public',
  'drizzle',
  'next.config.ts',
  'proxy.ts',
  'postcss.config.mjs',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
];

function newestModification(entry: string): number {
  const stat = fs.statSync(entry, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const child of fs.readdirSync(entry)) {
    newest = Math.max(newest, newestModification(path.join(entry, child)));
  }
  return newest;
}

/** True when .next holds a complete build that is newer than every source file. */
export function isBuildCurrent(projectRoot: string): boolean {
  const buildId = fs.statSync(path.join(projectRoot, '.next', 'BUILD_ID'), { throwIfNoEntry: false });
  if (!buildId) return false;
  const newestSource = Math.max(...BUILD_INPUTS.map((entry) => newestModification(path.join(projectRoot, entry))));
  return buildId.mtimeMs >= newestSource;
}

/** Runs `next build` when the build is missing or older than the sources. */
export function ensureProductionBuild(projectRoot: string, log: (line: string) => void): void {
  if (isBuildCurrent(projectRoot)) return;
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
}
