import { type SQL, sql } from 'drizzle-orm';
import type { BudgetScope } from '@holdfast/protocol/inputs/spend-budget-input';

/**
 * The finished attempts a budget covers that began in [from, to), as a FROM clause over `attempts a`: by the
 * attempt's own agent, step or model (stored lower-cased, as model budgets name it), or joined to its task (owner, queue) or its key (downstream), as the begins and the
 * seen spend judge them.
 */
export function attemptsCoveredSql(budget: { scope: BudgetScope; scopeValue: string }, from: Date, to: Date): SQL {
  const value = budget.scopeValue;
  const join =
    budget.scope === 'downstream'
      ? sql`join idempotency_keys k on k.key = a.idempotency_key and k.downstream = ${value}`
      : budget.scope === 'owner'
        ? sql`join task_budgets t on t.task_id = a.task_id and t.owner = ${value}`
        : budget.scope === 'queue'
          ? sql`join task_agents t on t.task_id = a.task_id and t.queue = ${value}`
          : sql``;
  const own =
    budget.scope === 'agent'
      ? sql`and a.agent = ${value}`
      : budget.scope === 'step'
        ? sql`and a.step = ${value}`
        : budget.scope === 'model'
          ? sql`and a.model = ${value}`
          : sql``;
  return sql`attempts a ${join}
    where a.started_at >= ${from.toISOString()}::timestamptz and a.started_at < ${to.toISOString()}::timestamptz
      and a.outcome <> 'running' ${own}`;
}
