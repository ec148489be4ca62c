import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { seedDemoAttemptsIfEmpty } from '../../../lib/demo/seed-attempts';
import { rollUpAttempts } from '../../../packages/engine/src/rollups/roll-up';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();

describe('the demo history', () => {
  it('comes the way each demo agent works (research over HTTP, the others in-process), every cost reported', async () => {
    const now = new Date('2026-11-20T12:00:00Z');
    expect(await seedDemoAttemptsIfEmpty({ db: database.db }, now)).toBeGreaterThan(0);
    const ways = await database.db.execute<{ agent: string; source: string | null; cost_source: string | null }>(sql`
      select distinct agent, source, cost_source from attempts order by agent`);
    expect(ways.map((row) => [row.agent, row.source, row.cost_source])).toEqual([
      ['outreach', 'library', 'reported'],
      ['payments', 'library', 'reported'],
      ['publishing', 'library', 'reported'],
      ['research', 'http', 'reported'],
    ]);

    await rollUpAttempts(database.db, { now, retentionFloor: new Date('2026-10-21T00:00:00Z') });
    const sources = await database.db.execute<{ agent: string; source: string; steps: number }>(sql`
      select agent, source, count(*)::int as steps from step_sources group by agent, source order by agent`);
    expect(sources.map((row) => [row.agent, row.source, row.steps])).toEqual([
      ['outreach', 'library', 2],
      ['payments', 'library', 2],
      ['publishing', 'library', 2],
      ['research', 'http', 3],
    ]);
  });
});
