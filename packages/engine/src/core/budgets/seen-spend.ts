import { type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { BUDGET_STRIPES } from './budget-stripes';
import { storedSpendBudgets } from './spend-budgets';

/** A finished attempt Holdfast only saw (reported after the fact, or read from a span): what it cost, and when. */
export interface SeenAttempt {
  taskId: string;
  agent: string;
  step: string;
  startedAt: Date;
  costMicros: number;
  retryCostMicros: number;
}

/**
 * Counts spend Holdfast could not refuse under every budget covering it (the fleet, its agent, its step, its task's
 * owner and queue when the task is known), in the period it began in: spent, and seen (the part that was watched,
 * not enforced), with its share of retry spend. Nothing is read or written when the fleet has no budget.
 */
export async function countSeenSpend(db: Executor, attempt: SeenAttempt): Promise<void> {
  if (attempt.costMicros === 0 || (await storedSpendBudgets.get(db)).length === 0) return;
  await db.execute(sql`
    with written (task_id, agent, step, started_at, cost_micros, retry_cost_micros) as (
      values (${attempt.taskId}::text, ${attempt.agent}::text, ${attempt.step}::text,
        ${attempt.startedAt.toISOString()}::timestamptz, ${attempt.costMicros}::bigint, ${attempt.retryCostMicros}::bigint)
    ),
    ${seenSpendOfWrittenCte()}
    select 1`);
}

/**
 * What countSeenSpend writes, as a CTE over `written` (attempts with their task, agent, step, start, cost and retry
 * cost), for one reported attempt or the attempts a span batch wrote: each covering budget's period counts their
 * spend as seen. The spend is split evenly over the period's stripes (made if missing, locked in stripe order), so
 * every stripe's share has that much less room, as the whole budget has. A batch's attempts are counted once, when
 * written; numbering them again later moves no spend.
 */
export function seenSpendOfWrittenCte(): SQL {
  const part = (total: SQL) =>
    sql`${total} / ${BUDGET_STRIPES}::int + case when stripe < ${total} % ${BUDGET_STRIPES}::int then 1 else 0 end`;
  return sql`seen_by_budget as (
      select b.id as budget_id, date_trunc(b.period, w.started_at, 'UTC') as period_start,
        sum(w.cost_micros)::bigint as cost, sum(w.retry_cost_micros)::bigint as retry_cost
      from written w
      left join task_budgets t on t.task_id = w.task_id
      left join task_agents a on a.task_id = w.task_id
      join spend_budgets b on b.scope = 'fleet' or (b.scope = 'agent' and b.scope_value = w.agent)
        or (b.scope = 'step' and b.scope_value = w.step) or (b.scope = 'owner' and b.scope_value = t.owner)
        or (b.scope = 'queue' and b.scope_value = coalesce(t.queue, a.queue))
      where w.cost_micros > 0
      group by 1, 2
    ),
    budgets_seen as (
      insert into spend_budget_usage as u (budget_id, period_start, stripe, spent_micros, seen_micros,
        retry_spent_micros)
      select budget_id, period_start, stripe, ${part(sql`cost`)}, ${part(sql`cost`)}, ${part(sql`retry_cost`)}
      from seen_by_budget cross join generate_series(0, ${BUDGET_STRIPES - 1}::int) as stripe
      order by budget_id, period_start, stripe
      on conflict (budget_id, period_start, stripe) do update set
        spent_micros = u.spent_micros + excluded.spent_micros,
        seen_micros = u.seen_micros + excluded.seen_micros,
        retry_spent_micros = u.retry_spent_micros + excluded.retry_spent_micros)`;
}
