import { type SQL, sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import { periodStartOf } from './budget-periods';
import type { SpendBudget } from './spend-budgets';

/** A reservation an attempt holds under a budget: the budget, the period's start, and whether it is a retry's. */
export interface BudgetReservation {
  b: number;
  p: string;
  r: boolean;
}

/** What a begin is, for the budgets that cover it. */
export interface BudgetedWork {
  agent: string;
  queue: string;
  step: string;
  downstream: string | null;
  owner: string;
}

/** The budgets a begin reserves under: every one whose scope takes in the work. */
export function budgetsCovering(budgets: SpendBudget[], work: BudgetedWork): SpendBudget[] {
  const value: Record<Exclude<SpendBudget['scope'], 'fleet'>, string | null> = {
    agent: work.agent,
    owner: work.owner,
    queue: work.queue,
    step: work.step,
    downstream: work.downstream,
  };
  return budgets.filter((budget) => budget.scope === 'fleet' || value[budget.scope] === budget.scopeValue);
}

/**
 * Reserves `estimate` under each budget, all or none, in one statement: each period's row is made or locked, in
 * the budgets' order (two begins lock shared rows in the same order), and takes the reservation only while what is
 * spent and reserved plus it stays within the limit (and, for a retry, within the share retries may use); once
 * spend and reservations reach the limit nothing is reserved, whatever the estimate. Answers the budgets that took
 * it: fewer than asked means the begin is refused, and its transaction (this included) is rolled back. The
 * reservations are written on the key for the finish.
 */
export async function reserveUnderBudgets(
  tx: Transaction,
  key: string,
  covering: SpendBudget[],
  attempt: { estimate: number; retry: boolean; now: Date },
): Promise<number[]> {
  const ordered = [...covering].sort((a, b) => a.id - b.id);
  const periods = ordered.map((budget) => periodStartOf(budget.period, attempt.now).toISOString());
  const retryCaps = ordered.map((budget) =>
    budget.firstAttemptPercent === null
      ? budget.limitMicros
      : Math.floor((budget.limitMicros * (100 - budget.firstAttemptPercent)) / 100),
  );
  const retryEstimate = attempt.retry ? attempt.estimate : 0;
  const rows = await tx.execute<{ budget_id: string }>(sql`
    with wanted as (
      select * from unnest(${intArray(ordered.map((budget) => budget.id))}, ${textArray(periods)}::timestamptz[],
        ${intArray(ordered.map((budget) => budget.limitMicros))}, ${intArray(retryCaps)})
        with ordinality as w(budget_id, period_start, limit_micros, retry_cap_micros, place)
    ),
    taken as (
      insert into spend_budget_usage as u (budget_id, period_start, reserved_micros, retry_reserved_micros,
        limit_micros, retry_cap_micros)
      select budget_id, period_start, ${attempt.estimate}::bigint, ${retryEstimate}::bigint, limit_micros,
        retry_cap_micros
      from wanted
      where ${attempt.estimate}::bigint <= limit_micros and ${retryEstimate}::bigint <= retry_cap_micros
      order by place
      on conflict (budget_id, period_start) do update set
        reserved_micros = u.reserved_micros + excluded.reserved_micros,
        retry_reserved_micros = u.retry_reserved_micros + excluded.retry_reserved_micros,
        limit_micros = excluded.limit_micros, retry_cap_micros = excluded.retry_cap_micros
      where u.spent_micros + u.reserved_micros + excluded.reserved_micros <= excluded.limit_micros
        and u.spent_micros + u.reserved_micros < excluded.limit_micros
        and u.retry_spent_micros + u.retry_reserved_micros + excluded.retry_reserved_micros <= excluded.retry_cap_micros
      returning u.budget_id, u.period_start
    ),
    noted as (
      update idempotency_keys set budget_reservations = (
        select jsonb_agg(jsonb_build_object('b', budget_id, 'p', period_start, 'r', ${attempt.retry}::boolean))
        from taken)
      where key = ${key}::text
    )
    select budget_id from taken`);
  return [...rows].map((row) => Number(row.budget_id));
}

/** Gives back what an attempt that never finished left reserved (a later attempt of its key took its place). */
export async function releaseLeftover(
  tx: Transaction,
  leftover: { micros: number; reservations: BudgetReservation[] },
): Promise<void> {
  // The finish's settlement at no cost: the reservation given back, nothing spent (a late cost is the takeover's).
  await tx.execute(sql`
    with begun as (
      select ${leftover.micros}::bigint as reserved_micros, ${JSON.stringify(leftover.reservations)}::jsonb
        as budget_reservations
    ),
    ${settleBudgetsCte(sql`0::bigint`)}
    select 1`);
}

/**
 * The finish's part, as a CTE over `begun` (the finishing key, with its `reserved_micros` and
 * `budget_reservations`): each reservation given back and the real cost added to the period's spend (a retry's to
 * the retries' spend too). The period is the begin's: an attempt counts in the period it began in.
 */
export function settleBudgetsCte(costMicros: SQL): SQL {
  // Locked in the budgets' order, as the begins lock them: two finishes (or a finish and a begin) sharing budgets
  // never wait on each other in a circle.
  return sql`budgets_locked as (
  select u.budget_id, u.period_start, r.r as retry
  from begun
  cross join jsonb_to_recordset(coalesce(begun.budget_reservations, '[]'::jsonb)) as r(b bigint, p timestamptz, r boolean)
  join spend_budget_usage u on u.budget_id = r.b and u.period_start = r.p
  order by u.budget_id
  for update of u
),
budgets_settled as (
  update spend_budget_usage u set
    reserved_micros = greatest(0, u.reserved_micros - begun.reserved_micros),
    spent_micros = u.spent_micros + ${costMicros},
    retry_reserved_micros = case when l.retry then greatest(0, u.retry_reserved_micros - begun.reserved_micros)
      else u.retry_reserved_micros end,
    retry_spent_micros = u.retry_spent_micros + case when l.retry then ${costMicros} else 0 end
  from begun, budgets_locked l
  where u.budget_id = l.budget_id and u.period_start = l.period_start
  returning 1
)`;
}

const intArray = (values: number[]) => sql`${`{${values.join(',')}}`}::bigint[]`;
const textArray = (values: string[]) => sql`${`{${values.map((value) => `"${value}"`).join(',')}}`}::text[]`;
