import { z } from 'zod';
import { getSpendBudgets } from '@/lib/queries/spend-budgets';
import { agentQueryEndpoint } from '@/lib/server/agent-endpoint';
import type { Actor, SpendBudget } from '@holdfast/engine/core';

export const dynamic = 'force-dynamic';

/**
 * The fleet's spend budgets with their periods under way (token scope: read): what each spent, saw, reserved and
 * refused, and when it runs out. A dashboard's or a script's view; changing budgets is an admin's, in the console
 * or the budgets file.
 */
export const GET = agentQueryEndpoint({ action: 'console.read', query: z.strictObject({}) }, async (ctx) => {
  const at = ctx.clock?.() ?? new Date();
  const budgets = (await getSpendBudgets(ctx.db, at)).filter((budget) => visibleTo(ctx.actor, budget));
  return {
    at: at.toISOString(),
    budgets: budgets.map(
      ({ id: _id, updatedBy: _by, updatedAt: _at, periodStart, periodEnd, exhaustedAt, resetFrom, ...budget }) => ({
        ...budget,
        resetFrom: resetFrom?.toISOString() ?? null,
        periodStart: periodStart.toISOString(),
        periodEnd: periodEnd.toISOString(),
        exhaustedAt: exhaustedAt?.toISOString() ?? null,
      }),
    ),
  };
});

/**
 * A token limited to some agents or queues sees only the budgets of those agents or queues: a wider budget's
 * figures are other agents' spend.
 */
function visibleTo(actor: Actor, budget: SpendBudget): boolean {
  if (actor.type !== 'agent' || (!actor.allowedAgents && !actor.allowedQueues)) return true;
  if (budget.scope === 'agent') return actor.allowedAgents?.includes(budget.scopeValue) ?? false;
  if (budget.scope === 'queue') return actor.allowedQueues?.includes(budget.scopeValue) ?? false;
  return false;
}
