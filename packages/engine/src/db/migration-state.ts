import { sql } from 'drizzle-orm';
import journal from '../../drizzle/meta/_journal.json' with { type: 'json' };
import type { Executor } from './client';

export interface MigrationState {
  applied: number;
  expected: number;
  /** Tags of migrations this build ships that the database has not applied. */
  pending: string[];
  upToDate: boolean;
}

/**
 * Compares the migrations this build ships with those recorded in the
 * database. drizzle records each applied migration with the journal's `when`
 * timestamp as created_at, which is what identifies it here.
 */
export async function getMigrationState(db: Executor): Promise<MigrationState> {
  const [{ exists } = { exists: false }] = await db.execute<{ exists: boolean }>(
    sql`select to_regclass('drizzle.__drizzle_migrations') is not null as exists`,
  );
  const appliedWhens = new Set<number>();
  if (exists) {
    const rows = await db.execute<{ created_at: string }>(sql`select created_at from drizzle.__drizzle_migrations`);
    for (const row of rows) appliedWhens.add(Number(row.created_at));
  }
  const pending = journal.entries.filter((entry) => !appliedWhens.has(entry.when)).map((entry) => entry.tag);
  return {
    applied: appliedWhens.size,
    expected: journal.entries.length,
    pending,
    upToDate: pending.length === 0,
  };
}
