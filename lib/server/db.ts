import 'server-only';
import { connectDatabase, type Database, type DatabaseConnection } from '../db/client';
import { getEnvironment } from '../env';
import { openRequestLocks, type RequestLocks } from './request-locks';

// Kept on globalThis so that `next dev` reloading modules does not open a new pool each time.
const holder = globalThis as typeof globalThis & { holdfastDatabase?: DatabaseConnection; holdfastRequestLocks?: RequestLocks };

function databaseUrl(): string {
  const url = getEnvironment().DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: start Holdfast with `npm start`, which provides a database');
  return url;
}

/**
 * The dashboard's database, opened on first use rather than at import, so that
 * `next build` needs no database.
 */
export function getDb(): Database {
  if (!holder.holdfastDatabase) {
    const connection = connectDatabase(databaseUrl(), { connectTimeoutSeconds: 5 });
    // Closing the pool (tests do, between files) closes the request locks' connection too.
    holder.holdfastDatabase = {
      ...connection,
      close: async () => {
        const locks = holder.holdfastRequestLocks;
        holder.holdfastRequestLocks = undefined;
        await Promise.all([connection.close(), locks?.close()]);
      },
    };
  }
  return holder.holdfastDatabase.db;
}

/** The in-flight Idempotency-Keys of this process (see request-locks.ts), on their own connection. */
export function getRequestLocks(): RequestLocks {
  holder.holdfastRequestLocks ??= openRequestLocks(databaseUrl());
  return holder.holdfastRequestLocks;
}
