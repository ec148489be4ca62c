import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';

export const migrationsFolder = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../drizzle',
);

/**
 * Session-level advisory lock held while migrating, so two instances starting
 * at once apply each migration exactly once: the second waits, then finds
 * nothing left to do. The number is arbitrary but fixed for Holdfast.
 */
const MIGRATION_LOCK_ID = 7_240_117_001;

/** Applies every pending migration in drizzle/ to the database at `url`. */
export async function migrateDatabase(url: string): Promise<void> {
  // One connection, so the lock and the migration share a session.
  const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
    try {
      await migrate(drizzle(sql), { migrationsFolder });
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}
