import { afterEach, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../../packages/engine/src/db/client';
import { getHealth } from '../../../lib/queries/health';
import { clearDrainingForTests, markDraining } from '../../../lib/server/draining';
import { useTestDatabase } from '../../support/test-database';

const migrated = useTestDatabase();
const empty = useTestDatabase({ migrated: false });

describe('getHealth', () => {
  it('is ok with no pending migrations on a migrated database', async () => {
    const report = await getHealth(migrated.db);
    expect(report).toMatchObject({
      status: 'ok',
      database: { reachable: true },
      migrations: { upToDate: true, pending: [] },
    });
  });

  it('names the pending migrations of a database that was never migrated', async () => {
    const report = await getHealth(empty.db);
    expect(report.status).toBe('ok');
    if (report.status !== 'ok') return;
    expect(report.migrations.upToDate).toBe(false);
    expect(report.migrations.pending.length).toBeGreaterThan(0);
  });

  it('is unavailable, without connection details, when the database does not answer', async () => {
    const unreachable = connectDatabase('postgres://postgres:secret-password@127.0.0.1:1/holdfast', {
      connectTimeoutSeconds: 2,
    });
    try {
      const report = await getHealth(unreachable.db);
      expect(report).toEqual({ status: 'unavailable', database: { reachable: false, error: 'ECONNREFUSED' } });
      expect(JSON.stringify(report)).not.toContain('secret-password');
    } finally {
      await unreachable.close();
    }
  });
});

describe('/api/health on a stopping instance', () => {
  afterEach(() => clearDrainingForTests());

  it('answers 503 "draining" with Retry-After at once, without asking the database', async () => {
    const { GET } = await import('../../../app/api/health/route');
    markDraining(); // what scripts/start.ts does on SIGTERM
    const response = await GET();
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5'); // HOLDFAST_DRAIN_SECONDS' default
    expect(response.headers.get('cache-control')).toBe('no-store');
    // Neither 'ok' nor 'unavailable': the database was not asked, and nothing is down.
    expect(await response.json()).toMatchObject({ status: 'draining', down: [] });
  });
});
