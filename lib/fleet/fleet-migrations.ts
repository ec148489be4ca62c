import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { Database, Transaction } from '@holdfast/engine/db';
import { databaseErrorCode } from '@holdfast/engine/db';
import { FLEET_SCHEMA } from './tables';

/**
 * The demo fleet's own migration set: plain SQL files in lib/fleet/migrations,
 * applied in file-name order and recorded in holdfast_demo.migrations. The
 * product's migrations (packages/engine/drizzle/) know nothing of them; only the fleet runs them.
 */
export const fleetMigrationsFolder = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Not the product migrator's lock (7_240_117_001): the two sets never wait for each other. */
const FLEET_MIGRATION_LOCK_ID = 7_240_117_002;
const STATEMENT_BREAKPOINT = '--> statement-breakpoint';

/**
 * Applies the fleet's pending migrations, all in one transaction under a
 * transaction-level advisory lock: fleets starting at once apply each file
 * exactly once (the others wait, then find nothing to do), and a failing file
 * leaves no half-made schema. Returns the names applied by this call.
 *
 * Runs as whatever role the fleet connects as. Once applied, it needs only to
 * read the catalog and the record, so a role that may not create (the
 * application role, given the grants in 0001) still starts the fleet.
 */
export async function applyFleetMigrations(db: Database, folder = fleetMigrationsFolder): Promise<string[]> {
  const files = (await fs.readdir(folder)).filter((file) => file.endsWith('.sql')).sort();
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${FLEET_MIGRATION_LOCK_ID})`);
    await ensureMigrationRecord(tx);
    const recorded = await tx.execute<{ name: string }>(
      sql`select name from ${sql.identifier(FLEET_SCHEMA)}.migrations`,
    );
    const applied = new Set(recorded.map((row) => row.name));
    const pending = files.map((file) => file.slice(0, -'.sql'.length)).filter((name) => !applied.has(name));
    for (const name of pending) {
      const text = await fs.readFile(path.join(folder, `${name}.sql`), 'utf8');
      for (const statement of text.split(STATEMENT_BREAKPOINT)) await tx.execute(sql.raw(statement));
      await tx.execute(sql`insert into ${sql.identifier(FLEET_SCHEMA)}.migrations (name) values (${name})`);
    }
    return pending;
  });
}

/**
 * Makes the schema and its record table when missing. Looked up in the catalog
 * first: CREATE ... IF NOT EXISTS still asks for the privilege to create, which
 * a role that only uses the fleet's tables does not have.
 */
async function ensureMigrationRecord(tx: Transaction): Promise<void> {
  const [found] = await tx.execute<{ schema: boolean; record: boolean }>(sql`
    select exists (select from pg_namespace where nspname = ${FLEET_SCHEMA}) as schema,
      exists (select from pg_class c join pg_namespace n on n.oid = c.relnamespace
              where n.nspname = ${FLEET_SCHEMA} and c.relname = 'migrations') as record`);
  if (!found?.schema)
    await tx.execute(sql`create schema ${sql.identifier(FLEET_SCHEMA)}`).catch((error: unknown) => {
      if (databaseErrorCode(error) !== '42501') throw error;
      throw new Error(
        `The demo fleet's role may not create its schema ${FLEET_SCHEMA}: grant it CREATE on the database, or create the schema for it`,
        { cause: error },
      );
    });
  if (!found?.record)
    await tx.execute(sql`
      create table ${sql.identifier(FLEET_SCHEMA)}.migrations (
        name text primary key,
        applied_at timestamptz not null default now()
      )`);
}
