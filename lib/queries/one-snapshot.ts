import type { Database, Executor } from '@holdfast/engine/db';

/**
 * Runs a page's reads in one read-only REPEATABLE READ transaction, so every figure on the page comes from one
 * snapshot of the database: a page that reads a step's failures and, later, their error classes shows them agreeing
 * even while agents write. The reads then share one connection (they queue rather than run side by side); a standby
 * serves such a transaction as well as the primary.
 */
export function inOneSnapshot<T>(db: Database, read: (snapshot: Executor) => Promise<T>): Promise<T> {
  return db.transaction((snapshot) => read(snapshot), { isolationLevel: 'repeatable read', accessMode: 'read only' });
}
