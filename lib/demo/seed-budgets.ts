import { sql } from 'drizzle-orm';
import { type CoreContext, saveSpendBudget } from '@holdfast/engine/core';

/**
 * Budgets for the demo fleet, so the Spend budgets page and the Overview show them at work: outreach's day, with a
 * share kept for first attempts, and the briefing model's rolling hour. Its limit is a few times what outreach spends in a day (about $0.25), so its
 * burn-down climbs visibly; it covers one agent, not the fleet: attempts a person reports by hand (or a test
 * records) never make every step wait.
 */
const demoBudgets = [
  {
    name: 'outreach per day',
    scope: 'agent',
    scopeValue: 'outreach',
    period: 'day',
    limitUsd: 1,
    firstAttemptPercent: 50,
  },
  // The traced briefing agent's model, over the last hour: its spans are counted (seen), never refused.
  {
    name: 'gpt-4o-mini last hour',
    scope: 'model',
    scopeValue: 'gpt-4o-mini',
    period: 'rolling_hour',
    limitUsd: 0.5,
  },
] as const;

/** Seeds the demo budgets when there are none; returns how many it made. */
export async function seedDemoBudgetsIfEmpty(ctx: CoreContext): Promise<number> {
  const [existing] = await ctx.db.execute<{ budgets: number }>(sql`select count(*)::int as budgets from spend_budgets`);
  if ((existing?.budgets ?? 0) > 0) return 0;
  const seeder = { db: ctx.db, actor: { type: 'system' as const, id: 'demo-seed' } };
  for (const budget of demoBudgets) {
    await saveSpendBudget(seeder, { ...budget, reason: 'demo: a spend budget to show its use and forecast' });
  }
  return demoBudgets.length;
}
