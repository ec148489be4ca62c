import { afterAll, beforeAll } from 'vitest';
import type { DatabaseConnection } from '../../packages/engine/src/db/client';

/**
 * Points the console's own database handle (the one its route handlers and server actions open, kept on
 * globalThis) at a test's database, and closes it after the file's tests.
 */
export function useAppDatabase(database: { url: string }) {
  beforeAll(() => {
    process.env.DATABASE_URL = database.url;
  });
  afterAll(closeAppDatabase);
}

/** Closes the console's database handle, so the next file's tests open their own. */
export async function closeAppDatabase() {
  const holder = globalThis as typeof globalThis & { holdfastDatabase?: DatabaseConnection };
  await holder.holdfastDatabase?.close();
  holder.holdfastDatabase = undefined;
}
