import { sql } from 'drizzle-orm';
import type { Executor } from '@holdfast/engine/db';
import { countDownstreamEffects, type DownstreamCounts } from './downstreams';
import { FLEET_SCHEMA } from './tables';

/**
 * The demo's own read model: what the demo fleet's downstreams really did,
 * beside the duplicate deliveries the keys absorbed (claims beyond each key's
 * own acquisitions: replays served, and in-progress or uncertain refusals).
 * Null when there is no fleet data, or no fleet tables at all (the fleet
 * makes them when it first runs). It lives with the fleet, not with the
 * product's read models: the console shows it only when it has something.
 */
export type DemoSideEffects = (DownstreamCounts & { duplicatesAbsorbed: number }) | null;

export async function getDemoSideEffects(db: Executor): Promise<DemoSideEffects> {
  if (!(await fleetTablesAreReadable(db))) return null;
  const effects = await countDownstreamEffects(db);
  if (effects.emailsSent + effects.paymentsCharged + effects.pagesPublished === 0) return null;
  const [absorbed] = await db.execute<{ duplicates: number }>(
    sql`select coalesce(sum(claim_calls - acquisitions), 0)::int as duplicates from idempotency_keys`,
  );
  return { ...effects, duplicatesAbsorbed: absorbed?.duplicates ?? 0 };
}

/**
 * Asked of the catalog, since naming a table in a schema the role may not use
 * is an error rather than a null. The migration set makes its tables together,
 * so the outbox stands for all three.
 */
async function fleetTablesAreReadable(db: Executor): Promise<boolean> {
  const [found] = await db.execute<{ readable: boolean }>(sql`
    select exists (
      select from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ${FLEET_SCHEMA} and c.relname = 'fleet_email_outbox'
        and has_schema_privilege(n.oid, 'USAGE') and has_table_privilege(c.oid, 'SELECT')
    ) as readable`);
  return found?.readable ?? false;
}
