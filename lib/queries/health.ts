import 'server-only';
import { sql } from 'drizzle-orm';
import type { Executor } from '@holdfast/engine/db';
import { databaseErrorCode } from '@holdfast/engine/db';
import { getMigrationState, type MigrationState } from '@holdfast/engine/db';

export type HealthReport =
  | { status: 'ok'; database: { reachable: true }; migrations: MigrationState }
  | { status: 'unavailable'; database: { reachable: false; error: string } };

/** Whether the database answers, and whether it has every migration this build ships. */
export async function getHealth(db: Executor): Promise<HealthReport> {
  try {
    await db.execute(sql`select 1`);
    const migrations = await getMigrationState(db);
    return { status: 'ok', database: { reachable: true }, migrations };
  } catch (error) {
    // Name the failure without leaking connection details such as passwords.
    const reason = databaseErrorCode(error) ?? 'query failed';
    return { status: 'unavailable', database: { reachable: false, error: reason } };
  }
}
