import { type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
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
  const cost = attempt.costMicros;
  await db.execute(sql`
    with task as (
      select coalesce(t.owner, '') as owner, coalesce(t.queue, a.queue, '') as queue
      from (select 1) one
      left join task_budgets t on t.task_id = ${attempt.taskId}::text
      left join task_agents a on a.task_id = ${attempt.taskId}::text
    )
    insert into spend_budget_usage as u (budget_id, period_start, spent_micros, seen_micros, retry_spent_micros,
      limit_micros, retry_cap_micros)
    select b.id, date_trunc(b.period, ${attempt.startedAt.toISOString()}::timestamptz, 'UTC'), ${cost}::bigint,
      ${cost}::bigint, ${attempt.retryCostMicros}::bigint, b.limit_micros,
      b.limit_micros * (100 - coalesce(b.first_attempt_percent, 0)) / 100
    from spend_budgets b, task
    where b.scope = 'fleet' or (b.scope = 'agent' and b.scope_value = ${attempt.agent}::text)
      or (b.scope = 'step' and b.scope_value = ${attempt.step}::text)
      or (b.scope = 'owner' and b.scope_value = task.owner) or (b.scope = 'queue' and b.scope_value = task.queue)
    order by b.id
    on conflict (budget_id, period_start) do update set spent_micros = u.spent_micros + excluded.spent_micros,
      seen_micros = u.seen_micros + excluded.seen_micros,
      retry_spent_micros = u.retry_spent_micros + excluded.retry_spent_micros`);
}

/**
 * The same for a batch of attempts read from spans, as a CTE over `written` (the attempts a span batch wrote, with
 * their task, agent, step, start, cost and retry cost): each covering budget's period counts their spend as seen.
 * A batch's attempts are counted once, when written; numbering them again later moves no spend.
 */
export function seenSpendOfWrittenCte(): SQL {
  return sql`budgets_seen as (
      insert into spend_budget_usage as u (budget_id, period_start, spent_micros, seen_micros, retry_spent_micros,
        limit_micros, retry_cap_micros)
      select b.id, date_trunc(b.period, w.started_at, 'UTC'), sum(w.cost_micros), sum(w.cost_micros),
        sum(w.retry_cost_micros), b.limit_micros, b.limit_micros * (100 - coalesce(b.first_attempt_percent, 0)) / 100
      from written w
      left join task_budgets t on t.task_id = w.task_id
      join spend_budgets b on b.scope = 'fleet' or (b.scope = 'agent' and b.scope_value = w.agent)
        or (b.scope = 'step' and b.scope_value = w.step) or (b.scope = 'owner' and b.scope_value = t.owner)
        or (b.scope = 'queue' and b.scope_value = t.queue)
      where w.cost_micros > 0
      group by b.id, 2, b.limit_micros, b.first_attempt_percent
      order by b.id
      on conflict (budget_id, period_start) do update set spent_micros = u.spent_micros + excluded.spent_micros,
        seen_micros = u.seen_micros + excluded.seen_micros,
        retry_spent_micros = u.retry_spent_micros + excluded.retry_spent_micros)`;
}
