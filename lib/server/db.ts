import 'server-only';
import { connectDatabase, type Database, type DatabaseConnection } from '../db/client';
import { getEnvironment } from '../env';

// Kept on globalThis so that `next dev` reloading modules does not open a new pool each time.
const holder = globalThis as typeof globalThis & { holdfastDatabase?: DatabaseConnection };

/**
 * The dashboard's database, opened on first use rather than at import, so that
 * `next build` needs no database.
 */
export function getDb(): Database {
  if (!holder.holdfastDatabase) {
    const url = getEnvironment().DATABASE_URL;
    if (!url) {
      throw new Error('DATABASE_URL is not set: start Holdfast with `npm start`, which provides a database');
    }
    holder.holdfastDatabase = connectDatabase(url, { connectTimeoutSeconds: 5 });
  }
  return holder.holdfastDatabase.db;
}
