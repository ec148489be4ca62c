import { type SQL, sql } from 'drizzle-orm';
import { budgetModelOf } from '@holdfast/protocol/inputs/spend-budget-input';
import type { Executor } from '../../db/client';
import { BUDGET_STRIPES, overdrawnMarkSql } from './budget-stripes';
import { fleetHasBudgets } from './spend-budgets';

/** A finished attempt Holdfast only saw (reported after the fact, or read from a span): what it cost, and when. */
export interface SeenAttempt {
  taskId: string;
  agent: string;
  step: string;
  startedAt: Date;
  costMicros: number;
  retryCostMicros: number;
  /** The model it called, lower-cased; null when it named none. */
  model: string | null;
}

/**
 * Counts spend Holdfast could not refuse under every budget covering it (the fleet, its agent, its step, its model,
 * its task's owner and queue when the task is known), in the period it began in (a rolling hour's five minutes): spent, and seen (the part that was watched,
 * not enforced), with its share of retry spend.
 */
export async function countSeenSpend(
  db: Executor,
  attempt: SeenAttempt,
  /** Only under model budgets: a finish named the model its begin did not, so only they did not reserve. */
  only: 'every budget' | 'model budgets' = 'every budget',
): Promise<void> {
  // A fleet without budgets pays no statement per report. Which budgets cover the attempt is read in the statement,
  // so only the fleet's first budget can be missed, by another instance, for up to 5 s (the copy's life).
  if (attempt.costMicros === 0 || !(await fleetHasBudgets.get(db))) return;
  await db.execute(sql`
    with written (task_id, agent, step, started_at, cost_micros, retry_cost_micros, model) as (
      values (${attempt.taskId}::text, ${attempt.agent}::text, ${attempt.step}::text,
        ${attempt.startedAt.toISOString()}::timestamptz, ${attempt.costMicros}::bigint, ${attempt.retryCostMicros}::bigint,
        ${attempt.model}::text)
    ),
    ${seenSpendOfWrittenCte(only)}
    select 1`);
}

/**
 * What countSeenSpend writes, as a CTE over `written` (attempts with their task, agent, step, start, cost, retry
 * cost and model), for one reported attempt or the attempts a span batch wrote: each covering budget's period counts their
 * spend as seen, each attempt's on one stripe (by its task, so a batch locks few), in budget and stripe order. A
 * stripe the spend takes past its share marks the period's shares stale (overdrawnMarkSql), so that the begins decide
 * on the totals, which include it. A batch's attempts are counted once, when written; numbering them again later
 * moves no spend.
 */
export function seenSpendOfWrittenCte(only: 'every budget' | 'model budgets' = 'every budget'): SQL {
  const after = {
    spent: sql`(u.spent_micros + excluded.spent_micros)`,
    reserved: sql`u.reserved_micros`,
    retrySpent: sql`(u.retry_spent_micros + excluded.retry_spent_micros)`,
    retryReserved: sql`u.retry_reserved_micros`,
  };
  return sql`budgets_seen as (
      insert into spend_budget_usage as u (budget_id, period_start, stripe, spent_micros, seen_micros,
        retry_spent_micros)
      select b.id, budget_period_start(b.period, b.reset_every_hours, b.reset_from, w.started_at), mod(hashtext(w.task_id)::bigint + 2147483648, ${BUDGET_STRIPES}::int)::smallint,
        sum(w.cost_micros), sum(w.cost_micros), sum(w.retry_cost_micros)
      from written w
      left join task_budgets t on t.task_id = w.task_id
      left join task_agents a on a.task_id = w.task_id
      join spend_budgets b on ${
        only === 'model budgets'
          ? sql`b.scope = 'model' and b.scope_value = w.model`
          : sql`b.scope = 'fleet' or (b.scope = 'agent' and b.scope_value = w.agent)
        or (b.scope = 'step' and b.scope_value = w.step) or (b.scope = 'owner' and b.scope_value = t.owner)
        or (b.scope = 'queue' and b.scope_value = coalesce(t.queue, a.queue))
        or (b.scope = 'model' and b.scope_value = w.model)`
      }
      where w.cost_micros > 0
      group by 1, 2, 3
      order by 1, 2, 3
      on conflict (budget_id, period_start, stripe) do update set
        spent_micros = ${after.spent},
        seen_micros = u.seen_micros + excluded.seen_micros,
        retry_spent_micros = ${after.retrySpent},
        cut_limit_micros = ${overdrawnMarkSql(after)})`;
}

/**
 * A finish that names the model its begin did not: its cost counts under that model's budgets as seen (the begin
 * reserved under none of them, not knowing the model), as the attempt's row now names the model.
 */
export async function countModelNamedAtFinish(
  db: Executor,
  attempt: Omit<SeenAttempt, 'model'> & { declaredModel: string | null; finishModel: string | undefined },
): Promise<void> {
  const { declaredModel, finishModel, ...seen } = attempt;
  if (declaredModel !== null || !finishModel) return;
  await countSeenSpend(db, { ...seen, model: budgetModelOf(finishModel) }, 'model budgets');
}
