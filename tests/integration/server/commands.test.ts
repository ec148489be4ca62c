import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getMigrationState } from '../../../packages/engine/src/db/migration-state';
import { useTestDatabase } from '../../support/test-database';

const projectRoot = path.resolve(import.meta.dirname, '../../..');
const database = useTestDatabase({ migrated: false });

/** Runs one of the npm scripts' entry points against the test database. */
function run(script: string, env: Record<string, string> = {}) {
  const result = spawnSync(path.join(projectRoot, 'node_modules/.bin/tsx'), [script], {
    cwd: projectRoot,
    env: {
      NODE_ENV: 'production',
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATABASE_URL: database.url,
      ...env,
    },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr.trim() };
}

describe('operator commands', () => {
  it('npm run db:migrate brings an empty database up to date, and needs no sign-in mode', async () => {
    const migrated = run('scripts/db-migrate.ts');
    expect(migrated).toMatchObject({ status: 0, stderr: '' });
    expect(migrated.stdout).toContain('Migrations applied');
    expect(await getMigrationState(database.db)).toMatchObject({ upToDate: true });
  });

  it('npm run sweep runs each due sweep once per bucket', () => {
    const first = run('scripts/sweep.ts');
    expect(first.status).toBe(0);
    expect(first.stdout).toContain('delete_expired_keys');
    expect(first.stdout).toContain('expired key(s) deleted');
    const second = run('scripts/sweep.ts');
    expect(second.status).toBe(0);
    // Lines read "[holdfast] <job> <bucket>: <what happened>"; a bucket swept by the first run is not swept again.
    const buckets = (output: string) =>
      new Map(
        output
          .split('\n')
          .filter(Boolean)
          .map((line) => {
            const [, job, bucket, outcome] = /^\[holdfast\] (\S+) (\S+): (.*)$/.exec(line) ?? [];
            return [job, { bucket, outcome }] as const;
          }),
      );
    const before = buckets(first.stdout);
    const after = buckets(second.stdout);
    expect([...after.keys()].sort()).toEqual([
      'delete_expired_keys',
      'delete_old_retry_pool_usage',
      'escalate_stale_locks',
      'escalate_uncertain_keys',
      'freeze_idle_tasks',
      'maintain_attempt_log',
      'reconcile_holds',
      'release_stale_slots',
      'resume_bulk_redrives',
      'roll_up_attempts',
    ]);
    for (const [job, { bucket, outcome }] of after) {
      if (bucket === before.get(job)?.bucket) expect(outcome).toBe('already swept in this bucket');
    }
  });

  it('both refuse to run without DATABASE_URL, with one line', () => {
    for (const script of ['scripts/db-migrate.ts', 'scripts/sweep.ts']) {
      const refused = run(script, { DATABASE_URL: '' });
      expect(refused.status).toBe(1);
      expect(refused.stderr.split('\n')).toHaveLength(1);
      expect(refused.stderr).toContain('DATABASE_URL is not set');
    }
  });
});
