import { sql } from 'drizzle-orm';
import type { Executor, Transaction } from '../db/client';

/** A family's own state between passes (rollup_family_state), as it saved it; empty before its first save. */
export type FamilyState = Record<string, unknown>;

/** Every family's saved state, read under the pass's lock on rollup_state (so passes take turns on these too). */
export async function readFamilyStates(tx: Transaction): Promise<Map<string, FamilyState>> {
  const rows = await tx.execute<{ family: string; state: FamilyState }>(
    sql`select family, state from rollup_family_state`,
  );
  return new Map(rows.map((row) => [row.family, row.state]));
}

/** Saves a family's state, in the pass's transaction. */
export async function saveFamilyState(tx: Executor, family: string, state: FamilyState): Promise<void> {
  await tx.execute(sql`
    insert into rollup_family_state (family, state, updated_at) values (${family}::text, ${JSON.stringify(state)}::jsonb, now())
    on conflict (family) do update set state = excluded.state, updated_at = excluded.updated_at`);
}
