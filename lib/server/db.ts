import 'server-only';
import { connectDatabase, type Database, type DatabaseConnection } from '@holdfast/engine/db';
import { startDatabaseClock, type DatabaseClock } from '@holdfast/engine/core';
import { getEnvironment } from '@holdfast/engine/env';
import { whenDeadlinePasses } from './database-outage';
import { openRequestLocks, type RequestLocks } from './request-locks';

// Kept on globalThis so that `next dev` reloading modules does not open a new pool each time.
const holder = globalThis as typeof globalThis & {
  holdfastDatabase?: DatabaseConnection;
  holdfastRequestLocks?: RequestLocks;
  holdfastClock?: DatabaseClock;
};

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
    whenDeadlinePasses(recycleHungPool);
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

/** The database's clock (see database-clock.ts): every context the server builds decides by it. */
export function getClock(): () => Date {
  holder.holdfastClock ??= startDatabaseClock(getDb);
  return holder.holdfastClock.now;
}

/**
 * The in-flight Idempotency-Keys of this process (see request-locks.ts), on their own connection: through
 * DATABASE_SESSION_URL when set, because session locks need a session a transaction pooler does not keep.
 */
export function getRequestLocks(): RequestLocks {
  holder.holdfastRequestLocks ??= openRequestLocks(getEnvironment().DATABASE_SESSION_URL ?? databaseUrl());
  return holder.holdfastRequestLocks;
}

/** The least time between two replacements of the pool, so a slow database is not made slower by reconnecting. */
const RECYCLE_INTERVAL_MS = 10_000;
let lastRecycledAt = 0;

/**
 * Replaces the pool after a request waited past its deadline. postgres.js can
 * leave a query unsettled on a connection that died at the wrong moment (a
 * PostgreSQL crash or restart), and that connection then stays busy for good:
 * enough of them and every request would wait until the process restarts.
 * The old pool is ended at once (its sockets destroyed, its waiting queries
 * refused, which callers answer with 503) and the next request opens a fresh
 * one, so the server recovers without a restart.
 */
function recycleHungPool(): void {
  const hung = holder.holdfastDatabase;
  if (!hung || Date.now() - lastRecycledAt < RECYCLE_INTERVAL_MS) return;
  lastRecycledAt = Date.now();
  holder.holdfastDatabase = undefined;
  void hung.sql.end({ timeout: 0 }).catch(() => {});
}
