import { sql } from 'drizzle-orm';
import { type BudgetInfo, budgetModelOf, periodWords } from '@holdfast/protocol/inputs/spend-budget-input';
import { periodEndOf, periodStartOf } from '../../budgets/budget-periods';
import { budgetsCovering, releaseLeftover, reserveUnderRemainingBudgets } from '../../budgets/budget-reservations';
import type { SpendBudget } from '../../budgets/spend-budgets';
import type { CoreContext } from '../../kernel/context';
import { countBudgetRefusal } from './budget-refusals';
import type { GateInClaim, Refusal } from './gate';
import { exhaustedStop } from './task-stops';

/**
 * The fleet's spend budgets covering the step (its agent, its task's owner, its queue, the step, its downstream,
 * the model its begin declared, the whole fleet): the attempt's estimate is reserved under each, all or none, after the task's own gate took its
 * share (its statement reserved on a free stripe of each budget it could; this gate reserves under the rest). A
 * budget without room refuses: the agent waits for the period to turn, or stops (a dead letter and a hold for the
 * task's owner, as for its own ceiling), as the budget says. With no budget covering it, nothing is read or written.
 */
export const spendBudgetGate: GateInClaim = {
  name: 'spend budget',
  async take(attempt, { key, estimate, now, request, facts }) {
    const { tx, budget } = attempt;
    if (!budget) return undefined;
    if (attempt.budgetLeftover) await releaseLeftover(tx, attempt.budgetLeftover);
    const covering = budgetsCovering(facts.spendBudgets, {
      agent: attempt.request.agent,
      queue: attempt.request.queue,
      step: attempt.request.step,
      downstream: request.downstream ?? null,
      owner: budget.owner,
      model: request.model === undefined ? null : budgetModelOf(request.model),
    });
    if (covering.length === 0) return undefined;
    const refusing = await reserveUnderRemainingBudgets(tx, key, covering, attempt.budgetsTaken ?? [], {
      estimate,
      retry: budget.charged_retry,
      now,
      preferredStripe: attempt.preferredStripe ?? 0,
    });
    if (refusing.length === 0) return undefined;
    // A budget that stops outweighs one that waits.
    return budgetRefusal(refusing.find((covered) => covered.onExhausted === 'stop') ?? refusing[0]!, estimate, now);
  },
};

function budgetRefusal(refusing: SpendBudget, estimate: number, now: Date): Refusal {
  const info: BudgetInfo = {
    name: refusing.name,
    scope: refusing.scope,
    scopeValue: refusing.scopeValue,
    period: refusing.period,
    limitMicros: refusing.limitMicros,
    periodEndsAt: periodEndOf(refusing, now).toISOString(),
  };
  const detail =
    `the spend budget "${refusing.name}" (${refusing.limitMicros} micro-dollars ${periodWords(refusing)}) has no ` +
    `room for this attempt's ${estimate} until ${info.periodEndsAt}`;
  if (refusing.onExhausted === 'stop') {
    const stop = exhaustedStop('budget_exhausted', detail);
    return {
      gate: 'spend budget',
      async answer(begin) {
        await countBudgetRefused(begin.ctx, refusing, now);
        return { ...(await stop.answer(begin)), budget: info };
      },
    };
  }
  return {
    gate: 'spend budget',
    async answer({ ctx, request }) {
      await countBudgetRefused(ctx, refusing, now);
      await countBudgetRefusal(ctx, request.agent, request.step, 'budget', now);
      return {
        decision: 'wait',
        code: 'BUDGET_EXHAUSTED',
        retryAfterMs: Math.max(0, Date.parse(info.periodEndsAt) - now.getTime()),
        detail,
        budget: info,
      };
    },
  };
}

/** The budget's period counts the refusal (after the refused transaction rolled back, so that it stays). */
async function countBudgetRefused(ctx: CoreContext, budget: SpendBudget, now: Date): Promise<void> {
  await ctx.db
    .execute(sql`
      update spend_budget_usage set refusals = refusals + 1
      where budget_id = ${budget.id} and period_start = ${periodStartOf(budget, now).toISOString()}::timestamptz
        and stripe = 0`)
    .catch(() => {});
}
