import { sql } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { countDownstreamEffects, type DownstreamCounts } from './downstreams';

/**
 * The demo's own read model: what the demo fleet's downstreams really did,
 * beside the duplicate deliveries the keys absorbed (claims beyond each key's
 * own acquisitions: replays served, and in-progress or uncertain refusals).
 * Null when there is no fleet data. It lives with the fleet, not with the
 * product's read models: the console shows it only when it has something.
 */
export type DemoSideEffects = (DownstreamCounts & { duplicatesAbsorbed: number }) | null;

export async function getDemoSideEffects(db: Executor): Promise<DemoSideEffects> {
  const effects = await countDownstreamEffects(db);
  if (effects.emailsSent + effects.paymentsCharged + effects.pagesPublished === 0) return null;
  const [absorbed] = await db.execute<{ duplicates: number }>(
    sql`select coalesce(sum(claim_calls - acquisitions), 0)::int as duplicates from idempotency_keys`,
  );
  return { ...effects, duplicatesAbsorbed: absorbed?.duplicates ?? 0 };
}
