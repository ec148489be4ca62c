import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../support/test-database';

const database = useTestDatabase();

describe('connectDatabase', () => {
  it('makes parallel plans cost more to start, so small reads stay serial and big scans still go parallel', async () => {
    const [setting] = await database.sql<{ parallel_setup_cost: string }[]>`show parallel_setup_cost`;
    expect(Number(setting!.parallel_setup_cost)).toBe(10_000);
    // A scan big enough still gets workers: the setting only raises the bar.
    await database.sql`create unlogged table big_scan as select g from generate_series(1, 3000000) as g`;
    await database.sql`analyze big_scan`;
    const plan = await database.sql<{ 'QUERY PLAN': string }[]>`explain select count(*) from big_scan where g % 7 = 0`;
    expect(plan.map((row) => row['QUERY PLAN']).join('\n')).toContain('Gather');
  });
});
