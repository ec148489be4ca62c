import fs from 'node:fs/promises';
import { getTableName, is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { connectDatabase } from '../../../packages/engine/src/db/client';
import { getMigrationState } from '../../../packages/engine/src/db/migration-state';
import { migrateDatabase } from '../../../packages/engine/src/db/migrate';
import * as productSchema from '../../../packages/engine/src/db/schema';
import { countDownstreamEffects, sendEmail } from '../../../lib/fleet/downstreams';
import { applyFleetMigrations, fleetMigrationsFolder } from '../../../lib/fleet/fleet-migrations';
import { getDemoSideEffects } from '../../../lib/fleet/side-effects-view';
import { migrationsUpTo } from '../../support/migrations-up-to';
import { useTestDatabase } from '../../support/test-database';
import { withSql } from '../../support/with-sql';

/**
 * The demo stays the demo (issue 15): the product's migrations make no fleet
 * table, and the fleet's own migration set makes them once, however many
 * fleets start at the same moment, for whichever role the fleet runs as.
 */
const fresh = useTestDatabase();
const fleetDb = useTestDatabase();
const appFirst = useTestDatabase();
const older = useTestDatabase({ migrated: false });

const FLEET_FILES = (await fs.readdir(fleetMigrationsFolder)).filter((file) => file.endsWith('.sql')).sort();
const FLEET_MIGRATIONS = FLEET_FILES.map((file) => file.replace(/\.sql$/, ''));
const FLEET_TABLES = ['fleet_email_outbox', 'fleet_payment_ledger', 'fleet_publications'];

/** Every fleet_* relation in the database, whatever its schema, as schema.name. */
async function fleetRelations(database: { sql: ReturnType<typeof connectDatabase>['sql'] }): Promise<string[]> {
  const rows = await database.sql<{ name: string }[]>`
    select n.nspname || '.' || c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relname like 'fleet\\_%' and c.relkind in ('r', 'p', 'v', 'm') order by 1`;
  return rows.map((row) => row.name);
}

describe("the product's migrations", () => {
  it('make no fleet table and no demo schema, and the product schema exports none', async () => {
    expect(await getMigrationState(fresh.db)).toMatchObject({ upToDate: true });
    expect(await fleetRelations(fresh)).toEqual([]);
    const [schema] = await fresh.sql`select to_regnamespace('holdfast_demo') is null as missing`;
    expect(schema?.missing).toBe(true);
    const productTables = Object.values(productSchema)
      .filter((value) => is(value, PgTable))
      .map((table) => getTableName(table as PgTable));
    expect(productTables.filter((name) => name.startsWith('fleet_'))).toEqual([]);
  });

  it("leave the console's side-effects view empty, without an error, for the application role", async () => {
    const app = connectDatabase(fresh.appUrl, { maxConnections: 1 });
    try {
      expect(await getDemoSideEffects(app.db)).toBeNull();
    } finally {
      await app.close();
    }
  });
});

describe("the fleet's migration set", () => {
  it('is applied exactly once when eight fleets start at the same moment', async () => {
    const fleets = Array.from({ length: 8 }, () => connectDatabase(fleetDb.url, { maxConnections: 1 }));
    try {
      const applied = await Promise.all(fleets.map((fleet) => applyFleetMigrations(fleet.db)));
      // One run applied the whole set; the seven that waited on the lock found nothing left.
      expect(applied.filter((names) => names.length > 0)).toEqual([FLEET_MIGRATIONS]);
      expect(applied.filter((names) => names.length === 0)).toHaveLength(7);
    } finally {
      await Promise.all(fleets.map((fleet) => fleet.close()));
    }
    const recorded = await fleetDb.sql<{ name: string }[]>`select name from holdfast_demo.migrations order by name`;
    expect(recorded.map((row) => row.name)).toEqual(FLEET_MIGRATIONS);
    expect(await fleetRelations(fleetDb)).toEqual(FLEET_TABLES.map((table) => `holdfast_demo.${table}`));
  });

  it('does nothing when applied again', async () => {
    expect(await applyFleetMigrations(fleetDb.db)).toEqual([]);
    const [count] = await fleetDb.sql<{ rows: number }[]>`select count(*)::int as rows from holdfast_demo.migrations`;
    expect(count?.rows).toBe(FLEET_MIGRATIONS.length);
  });

  it('lets the application role use tables another role made, with no right to create', async () => {
    const app = connectDatabase(fleetDb.appUrl, { maxConnections: 1 });
    try {
      // Already applied: the app role only reads the record, which needs no CREATE privilege.
      expect(await applyFleetMigrations(app.db)).toEqual([]);
      await sendEmail(app.db, { taskId: 'grant-check-1', recipient: 'a@customers.example', subject: 'Hello' });
      expect(await countDownstreamEffects(app.db, 'grant-check-')).toMatchObject({ emailsSent: 1 });
      expect(await getDemoSideEffects(app.db)).toMatchObject({ emailsSent: 1, tasksWithDuplicateEffects: 0 });
    } finally {
      await app.close();
    }
  });

  it('is made and owned by the application role where it may create schemas (as under npm start)', async () => {
    const database = new URL(appFirst.url).pathname.slice(1);
    await appFirst.sql.unsafe(`grant create on database "${database}" to holdfast_app`);
    const app = connectDatabase(appFirst.appUrl, { maxConnections: 1 });
    try {
      expect(await applyFleetMigrations(app.db)).toEqual(FLEET_MIGRATIONS);
      await sendEmail(app.db, { taskId: 'app-made-1', recipient: 'a@customers.example', subject: 'Hello' });
    } finally {
      await app.close();
    }
    const owners = await appFirst.sql<{ owner: string }[]>`
      select distinct pg_get_userbyid(c.relowner) as owner from pg_class c
      join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'holdfast_demo'`;
    expect(owners).toEqual([{ owner: 'holdfast_app' }]);
    expect(await countDownstreamEffects(appFirst.db, 'app-made-')).toMatchObject({ emailsSent: 1 });
  });
});

describe('a database migrated before the fleet had its own tables', () => {
  it("loses the demo's public copies at 0014, stays up to date, and the fleet then makes its own", async () => {
    await migrateDatabase(older.ownerUrl, await migrationsUpTo('0013'));
    // As the old 0007 left them (its text is gone from packages/engine/drizzle/), with demo rows in them.
    await withSql(older.ownerUrl, async (sql) => {
      await sql`create table fleet_email_outbox (id bigserial primary key, task_id text not null,
        recipient text not null, subject text not null, sent_at timestamptz not null default now())`;
      await sql`create table fleet_payment_ledger (idempotency_key text primary key, task_id text not null,
        amount_micros bigint not null, charged_at timestamptz not null default now())`;
      await sql`insert into fleet_email_outbox (task_id, recipient, subject) values ('demo-1', 'a@example.com', 'Hi')`;
    });
    // One of them made by another role: the migration must leave it rather than fail the upgrade.
    await older.sql.unsafe('create table public.fleet_publications (id bigserial primary key)');

    await migrateDatabase(older.ownerUrl);

    expect(await getMigrationState(older.db)).toMatchObject({ upToDate: true, pending: [] });
    expect(await fleetRelations(older)).toEqual(['public.fleet_publications']);
    expect(await applyFleetMigrations(older.db)).toEqual(FLEET_MIGRATIONS);
    expect(await countDownstreamEffects(older.db)).toMatchObject({ emailsSent: 0, pagesPublished: 0 });
  });
});
