import { type CoreContext, saveSpendBudget } from '../../packages/engine/src/core';
import type { Database } from '../../packages/engine/src/db';
import type { SaveSpendBudgetInput } from '../../packages/protocol/src/inputs/spend-budget-input';
import { admin, anAgent } from './actors';

/** A day in June, 10:00 UTC: the begins' clock in the budget tests. */
export const TEN_AM = new Date('2026-06-03T10:00:00Z');

/**
 * What the spend budget tests share: the admin's context, an agent's context on a clock a test sets, and a budget
 * of a name of its own (a UTC day unless the fields say otherwise), made by the admin.
 */
export function budgetKit(database: { db: Database }, prefix: string) {
  let made = 0;
  const asAdmin = () => ({ db: database.db, actor: admin });
  return {
    asAdmin,
    ctx: (now = TEN_AM): CoreContext => ({ db: database.db, actor: anAgent('budget-test'), clock: () => now }),
    async aBudget(fields: Partial<SaveSpendBudgetInput> & Pick<SaveSpendBudgetInput, 'scope' | 'limitUsd'>) {
      made += 1;
      const name = `${prefix}-${made}-${Math.random().toString(36).slice(2, 8)}`;
      await saveSpendBudget(asAdmin(), { name, period: 'day', reason: 'test', ...fields });
      return name;
    },
  };
}
