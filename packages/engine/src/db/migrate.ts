import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import { openPostgres } from './connection-url';

export const migrationsFolder = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../drizzle');

/**
 * Session-level advisory lock held while migrating, so two instances starting
 * at once apply each migration exactly once: the second waits, then finds
 * nothing left to do. The number is arbitrary but fixed for Holdfast.
 */
const MIGRATION_LOCK_ID = 7_240_117_001;

/**
 * Applies every pending migration in packages/engine/drizzle/ (or `folder`: tests replay an older
 * set of migrations to build a database as it was) to the database at `url`.
 */
export async function migrateDatabase(url: string, folder = migrationsFolder): Promise<void> {
  // One connection, so the lock and the migration share a session.
  const sql = openPostgres(url, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
    try {
      await migrate(drizzle(sql), { migrationsFolder: folder });
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * Migrates a named database as its owner role (DATABASE_MIGRATION_URL). Without
 * one, migrates as the application's own role, as before the roles existed: that
 * role then owns the tables and could set the audit log's triggers aside, so the
 * append-only guarantee holds only against other roles. Says so once.
 */
export async function migrateNamedDatabase(
  urls: { databaseUrl: string; migrationUrl?: string },
  log: (line: string) => void,
): Promise<void> {
  if (!urls.migrationUrl) {
    log(
      "Warning: DATABASE_MIGRATION_URL is not set, so DATABASE_URL's role runs the migrations and owns the tables: " +
        'the audit log is append-only only against other roles (docs/operations/database-roles.md)',
    );
  }
  await migrateDatabase(urls.migrationUrl ?? urls.databaseUrl);
}
