import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { startEnv } from '../faults/holdfast-server';

const projectRoot = path.resolve(import.meta.dirname, '../../..');

/**
 * Starts a production server that is expected to refuse to start on `databaseUrl`, and reads the line it
 * exits with: the first line of its output that mentions `mentioning` (the setting the refusal must name).
 */
export function refusedStart(databaseUrl: string, port: number, mentioning: string): { ok: boolean; line: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: projectRoot,
    env: startEnv(databaseUrl, port),
    timeout: 60_000,
    encoding: 'utf8',
  });
  const lines = `${result.stdout}\n${result.stderr}`.split('\n').filter((line) => line.includes(mentioning));
  return {
    ok: result.status !== 0 && lines.length > 0,
    line: lines[0]?.trim() ?? `exit ${result.status}: ${result.stderr.slice(-300)}`,
  };
}
