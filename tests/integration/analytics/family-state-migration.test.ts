import { describe, expect, it } from 'vitest';
import { migrateDatabase } from '../../../packages/engine/src/db/migrate';
import { readStoredBaselines } from '../../../packages/engine/src/rollups/anomaly-baselines';
import { migrationsUpTo } from '../../support/migrations-up-to';
import { useTestDatabase } from '../../support/test-database';

/**
 * Migration 0051 on a database as the previous release left it: what rollup_state held for the baselines and the
 * execution shapes becomes their rows of rollup_family_state, and the stored baseline stays the current one for
 * the readers (its end read back from the row equals the end it was stored for).
 */
const database = useTestDatabase({ migrated: false });

describe("migration 0051: each analytics family's own state row", () => {
  it("copies the baselines' ends and the shapes' fill, and the stored baseline still reads as current", async () => {
    await migrateDatabase(database.url, await migrationsUpTo('0050'));
    const sql = database.sql;
    const sharesEnd = new Date('2026-12-06T10:00:00.000Z');
    const daysEnd = new Date('2026-12-06T09:00:00.000Z');
    await sql`update rollup_state set baseline_end = ${sharesEnd.toISOString()}::timestamptz, baseline_days_end = ${daysEnd.toISOString()}::timestamptz,
      execution_shapes_filled = true where id = 1`;
    await sql`insert into anomaly_baselines (agent, step, shares) values ('payments', 'charge', '{0.1,0.25}')`;

    await migrateDatabase(database.url);

    const rows = await sql<{ family: string; state: Record<string, unknown> }[]>`
      select family, state from rollup_family_state order by family`;
    expect(rows.map((row) => row.family)).toEqual(['baselines', 'execution shapes']);
    const [baselines, shapes] = rows;
    expect(new Date(String(baselines!.state.sharesEnd)).getTime()).toBe(sharesEnd.getTime());
    expect(new Date(String(baselines!.state.daysEnd)).getTime()).toBe(daysEnd.getTime());
    expect(shapes!.state).toEqual({ filled: true });
    expect(await readStoredBaselines(database.db, sharesEnd)).toEqual([
      { agent: 'payments', step: 'charge', shares: [0.1, 0.25] },
    ]);
    // Any other end is not what the tables hold: the readers sum the rollups themselves.
    expect(await readStoredBaselines(database.db, daysEnd)).toBeNull();
  });
});
