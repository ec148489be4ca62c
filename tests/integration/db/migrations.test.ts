import { describe, expect, it } from 'vitest';
import journal from '../../../packages/engine/drizzle/meta/_journal.json';
import { connectDatabase } from '../../../packages/engine/src/db/client';
import { migrateDatabase } from '../../../packages/engine/src/db/migrate';
import { getMigrationState } from '../../../packages/engine/src/db/migration-state';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase({ migrated: false });

describe('migrateDatabase', () => {
  it('reports every migration pending on an empty database', async () => {
    const state = await getMigrationState(database.db);
    expect(state).toEqual({
      applied: 0,
      expected: journal.entries.length,
      pending: journal.entries.map((entry) => entry.tag),
      upToDate: false,
    });
  });

  it('applies each migration once when six instances start at the same moment', async () => {
    // Without the advisory lock, parallel runs race to create the same tables and fail.
    await Promise.all(Array.from({ length: 6 }, () => migrateDatabase(database.url)));

    const recorded = await database.sql<
      { count: number }[]
    >`select count(*)::int as count from drizzle.__drizzle_migrations`;
    expect(recorded[0]?.count).toBe(journal.entries.length);
    expect(await getMigrationState(database.db)).toMatchObject({ upToDate: true, pending: [] });
    const [table] = await database.sql`select to_regclass('public.attempts') is not null as exists`;
    expect(table?.exists).toBe(true);
    // The demo fleet's tables are the fleet's to make (tests/integration/fleet/fleet-migrations.test.ts).
    const [fleetTables] = await database.sql<{ count: number }[]>`
      select count(*)::int as count from pg_class where relname like 'fleet\_%'`;
    expect(fleetTables?.count).toBe(0);
  });

  it('does nothing on a database that is already up to date', async () => {
    await migrateDatabase(database.url);
    const recorded = await database.sql<
      { count: number }[]
    >`select count(*)::int as count from drizzle.__drizzle_migrations`;
    expect(recorded[0]?.count).toBe(journal.entries.length);
  });

  it('fails with the driver error code when the server does not answer', async () => {
    const closedPort = 'postgres://postgres@127.0.0.1:1/nothing';
    await expect(migrateDatabase(closedPort)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    // and a fresh connection to the real database still works afterwards
    const connection = connectDatabase(database.url);
    await expect(connection.sql`select 1 as one`).resolves.toEqual([{ one: 1 }]);
    await connection.close();
  });
});
