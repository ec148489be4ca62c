import { sql } from 'drizzle-orm';
import type { Actor, CoreContext } from '@holdfast/engine/core';
import { saveRetryPool } from '@holdfast/engine/core';
import { retryPools } from '@holdfast/engine/db/schema';

const seeder: Actor = { type: 'system', id: 'demo-seed' };

/** Pools for two demo agents, so the Steps page and the Overview show what a pool does. */
const demoPools = [
  { agent: 'outreach', step: '*', budgetPercent: 20, minRetriesPerSecond: 0.2, windowSeconds: 60 },
  { agent: 'research', step: 'summarize', budgetPercent: 25, minRetriesPerSecond: 0.1, windowSeconds: 120 },
];

/** Seeds the demo retry pools when there are none; returns how many it made. */
export async function seedDemoRetryPoolsIfEmpty(ctx: CoreContext): Promise<number> {
  const [existing] = await ctx.db.select({ count: sql<number>`count(*)::int` }).from(retryPools);
  if ((existing?.count ?? 0) > 0) return 0;
  for (const pool of demoPools)
    await saveRetryPool(
      { db: ctx.db, actor: seeder },
      { ...pool, reason: 'demo: a retry pool to show its level and refusals' },
    );
  return demoPools.length;
}
