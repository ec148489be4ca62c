import { type SQL, sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';

/**
 * How many rows a budget's period is split over. Concurrent begins under one budget reserve on different stripes
 * (each skips a stripe another begin holds), so up to this many claims run side by side; past it, a begin finds
 * every stripe taken and waits for them all (as every begin waited for the one row before stripes).
 */
export const BUDGET_STRIPES = 32;

/** A budget's period as a begin sees it: its limit and retry cap now, and the stripe the begin would rather use. */
export interface StripedBudget {
  budgetId: number;
  periodStart: string;
  limitMicros: number;
  retryCapMicros: number;
}

/** What one begin reserves: its estimate, the part of it a retry's, and the stripe it tries first. */
export interface StripeAsk {
  estimate: number;
  retryEstimate: number;
  preferredStripe: number;
}

/** A reservation taken: the budget, its period and the stripe holding it. */
export interface StripeTaken {
  budgetId: number;
  stripe: number;
}

/**
 * The fast way, as CTEs of the begin's one write statement (begin-writes.ts): on each budget of `budget_wanted`
 * (budget_id, period_start, limit_micros, retry_cap_micros), the first stripe from the preferred one on that no other
 * transaction holds and whose share has room takes the estimate; `budget_taken` returns the budget, period and
 * stripe of each. Nothing here waits for a lock, so the order budgets are taken in cannot deadlock. A budget
 * missing from `budget_taken` had no free stripe with room (or shares cut from another limit) and goes the slow way.
 */
export function freeStripeCtes(ask: { estimate: SQL; retryEstimate: SQL; preferredStripe: SQL }): SQL {
  return sql`budget_picked as (
  select free.budget_id, free.period_start, free.stripe
  from budget_wanted w cross join lateral (
    select u.budget_id, u.period_start, u.stripe from spend_budget_usage u
    where u.budget_id = w.budget_id and u.period_start = w.period_start
      and u.cut_limit_micros = w.limit_micros and u.cut_retry_cap_micros = w.retry_cap_micros
      and u.spent_micros + u.reserved_micros < u.share_micros
      and u.spent_micros + u.reserved_micros + ${ask.estimate} <= u.share_micros
      and u.retry_spent_micros + u.retry_reserved_micros + ${ask.retryEstimate} <= u.retry_share_micros
    order by (u.stripe + ${BUDGET_STRIPES}::int - ${ask.preferredStripe}) % ${BUDGET_STRIPES}::int
    limit 1
    for update skip locked
  ) free
),
budget_taken as (
  update spend_budget_usage u set
    reserved_micros = u.reserved_micros + ${ask.estimate},
    retry_reserved_micros = u.retry_reserved_micros + ${ask.retryEstimate}
  from budget_picked picked
  where u.budget_id = picked.budget_id and u.period_start = picked.period_start and u.stripe = picked.stripe
  returning u.budget_id, u.period_start, u.stripe
)`;
}

/**
 * The slow way, for one budget: every stripe of its period is made if missing and locked (in stripe order, as
 * every slow begin, seen spend and finish lock them), and the period's totals decide. With room in the whole
 * budget, the estimate goes on a stripe whose share still has room, or, when none has, every share is cut again:
 * each stripe keeps what it has used plus an even part of what is left after this estimate, which goes on the
 * preferred stripe. The shares always add up to the limit, and no stripe reserves past its share, so concurrent
 * begins never reserve past the budget. Answers the stripe that took it, or undefined when the budget is full.
 */
export async function reserveAcrossStripes(
  tx: Transaction,
  budget: StripedBudget,
  ask: StripeAsk,
): Promise<StripeTaken | undefined> {
  const { budgetId, periodStart, limitMicros: limit, retryCapMicros: retryCap } = budget;
  const { estimate, retryEstimate } = ask;
  await tx.execute(sql`
    insert into spend_budget_usage (budget_id, period_start, stripe)
    select ${budgetId}::bigint, ${periodStart}::timestamptz, stripe
    from generate_series(0, ${BUDGET_STRIPES - 1}::int) as stripe
    order by stripe
    on conflict do nothing`);
  const rows = await tx.execute<{ stripe: number }>(sql`
    with locked as materialized (
      select stripe, spent_micros + reserved_micros as used, retry_spent_micros + retry_reserved_micros as retry_used,
        share_micros, retry_share_micros,
        cut_limit_micros = ${limit}::bigint and cut_retry_cap_micros = ${retryCap}::bigint as cut_current
      from spend_budget_usage
      where budget_id = ${budgetId}::bigint and period_start = ${periodStart}::timestamptz
      order by stripe
      for update
    ),
    totals as (
      select sum(used)::bigint as used, sum(retry_used)::bigint as retry_used from locked
    ),
    with_room as (
      select stripe from locked
      where cut_current and used < share_micros and used + ${estimate}::bigint <= share_micros
        and retry_used + ${retryEstimate}::bigint <= retry_share_micros
      order by (stripe + ${BUDGET_STRIPES - ask.preferredStripe}::int) % ${BUDGET_STRIPES}::int
      limit 1
    ),
    plan as (
      select coalesce((select stripe from with_room), ${ask.preferredStripe}::int) as stripe,
        not exists (select 1 from with_room) as recut,
        ${limit}::bigint - t.used - ${estimate}::bigint as left_over,
        ${retryCap}::bigint - t.retry_used - ${retryEstimate}::bigint as retry_left_over
      from totals t
      where t.used < ${limit}::bigint and t.used + ${estimate}::bigint <= ${limit}::bigint
        and t.retry_used + ${retryEstimate}::bigint <= ${retryCap}::bigint
    ),
    taken as (
      update spend_budget_usage u set
        reserved_micros = u.reserved_micros + case when u.stripe = p.stripe then ${estimate}::bigint else 0 end,
        retry_reserved_micros = u.retry_reserved_micros
          + case when u.stripe = p.stripe then ${retryEstimate}::bigint else 0 end,
        share_micros = case when not p.recut then u.share_micros else
          u.spent_micros + u.reserved_micros + case when u.stripe = p.stripe then ${estimate}::bigint else 0 end
          + ${evenPart(sql`p.left_over`)} end,
        retry_share_micros = case when not p.recut then u.retry_share_micros else
          u.retry_spent_micros + u.retry_reserved_micros
          + case when u.stripe = p.stripe then ${retryEstimate}::bigint else 0 end
          + ${evenPart(sql`p.retry_left_over`)} end,
        cut_limit_micros = ${limit}::bigint,
        cut_retry_cap_micros = ${retryCap}::bigint
      from plan p
      where u.budget_id = ${budgetId}::bigint and u.period_start = ${periodStart}::timestamptz
        and (p.recut or u.stripe = p.stripe)
      returning u.stripe, u.stripe = p.stripe as reserved_here
    )
    select stripe from taken where reserved_here`);
  const [taken] = [...rows];
  return taken ? { budgetId, stripe: taken.stripe } : undefined;
}

/** A stripe's even part of what is left: the remainder's micro-dollars go one each to the first stripes. */
const evenPart = (leftOver: SQL) =>
  sql`(${leftOver} / ${BUDGET_STRIPES}::int + case when u.stripe < ${leftOver} % ${BUDGET_STRIPES}::int then 1 else 0 end)`;

/**
 * The current periods' spend at `now`, summed over their stripes, as a table to join in place of
 * `spend_budget_usage`: one row per budget and period (this hour's, day's or month's) with its spent, retry spent,
 * seen, reserved and retry reserved micro-dollars and its refusals.
 */
export function currentBudgetSpend(now: Date): SQL {
  const at = sql`${now.toISOString()}::timestamptz`;
  return sql`(
  select budget_id, period_start, sum(spent_micros)::bigint as spent_micros,
    sum(retry_spent_micros)::bigint as retry_spent_micros, sum(seen_micros)::bigint as seen_micros,
    sum(reserved_micros)::bigint as reserved_micros, sum(retry_reserved_micros)::bigint as retry_reserved_micros,
    sum(refusals)::int as refusals
  from spend_budget_usage
  where period_start in (date_trunc('hour', ${at}, 'UTC'), date_trunc('day', ${at}, 'UTC'),
    date_trunc('month', ${at}, 'UTC'))
  group by budget_id, period_start)`;
}
