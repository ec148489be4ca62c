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
  /**
   * A rolling hour's window start: what its earlier buckets (from it, before `periodStart`) used is carried, so
   * the current bucket's shares are cut from what the window leaves. Null for the other periods.
   */
  carriedFrom: string | null;
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
 * missing from `budget_taken` had no free stripe with room, or a stripe whose shares are stale (cut from another
 * limit, or overdrawn: see overdrawnMarkSql), and goes the slow way, which cuts them again from the totals.
 */
export function freeStripeCtes(ask: { estimate: SQL; retryEstimate: SQL; preferredStripe: SQL }): SQL {
  // From the preferred stripe up, then from 0 up to it: each an index range read in stripe order that stops at the
  // first free stripe with room, the second read only when the first found none (COALESCE stops at a value).
  const freeFrom = (range: SQL) => sql`(select u.stripe from spend_budget_usage u
      where u.budget_id = w.budget_id and u.period_start = w.period_start and ${range}
        and u.cut_limit_micros = w.limit_micros and u.cut_retry_cap_micros = w.retry_cap_micros
        and u.spent_micros + u.reserved_micros < u.share_micros
        and u.spent_micros + u.reserved_micros + ${ask.estimate} <= u.share_micros
        and u.retry_spent_micros + u.retry_reserved_micros + ${ask.retryEstimate} <= u.retry_share_micros
      order by u.stripe
      limit 1
      for update skip locked)`;
  return sql`budget_picked as (
  select w.budget_id, w.period_start,
    coalesce(${freeFrom(sql`u.stripe >= ${ask.preferredStripe}`)}, ${freeFrom(sql`u.stripe < ${ask.preferredStripe}`)})
      as stripe
  from budget_wanted w
  where not exists (
    select 1 from spend_budget_usage stale
    where stale.budget_id = w.budget_id and stale.period_start = w.period_start and stale.cut_limit_micros = -1)
),
budget_taken as (
  update spend_budget_usage u set
    reserved_micros = u.reserved_micros + ${ask.estimate},
    retry_reserved_micros = u.retry_reserved_micros + ${ask.retryEstimate}
  from budget_picked picked
  where u.budget_id = picked.budget_id and u.period_start = picked.period_start and u.stripe = picked.stripe
    and picked.stripe is not null
  returning u.budget_id, u.period_start, u.stripe
)`;
}

/**
 * The slow way, for one budget: every stripe of its period is made if missing and locked (in stripe order, as
 * every slow begin, seen spend and finish lock them), and the period's totals decide. With room in the whole
 * budget, the estimate goes on a stripe whose share still has room, or, when none has or any share is stale, every
 * share is cut again:
 * each stripe keeps what it has used, the preferred one this estimate too, and what is left is split over as many
 * stripes as it holds estimates like this one (at most all of them), from the preferred one on, so that the next
 * begins find room on the fast way. The shares always add up to the limit, and no stripe reserves past its share,
 * so concurrent begins never reserve past the budget. Answers the stripe that took it, `full` when the budget has
 * no room, or `gone` when the budget was deleted since the begin read it (it covers nothing now).
 */
export async function reserveAcrossStripes(
  tx: Transaction,
  budget: StripedBudget,
  ask: StripeAsk,
): Promise<StripeTaken | 'full' | 'gone'> {
  const { budgetId, periodStart, carriedFrom, limitMicros: limit, retryCapMicros: retryCap } = budget;
  const { estimate, retryEstimate } = ask;
  await tx.execute(sql`
    insert into spend_budget_usage (budget_id, period_start, stripe)
    select ${budgetId}::bigint, ${periodStart}::timestamptz, stripe
    from generate_series(0, ${BUDGET_STRIPES - 1}::int) as stripe
    where exists (select 1 from spend_budgets where id = ${budgetId}::bigint)
    order by stripe
    on conflict do nothing`);
  const rows = await tx.execute<{ stripe: number | null; stripes: number }>(sql`
    with locked as materialized (
      select stripe, spent_micros + reserved_micros as used, retry_spent_micros + retry_reserved_micros as retry_used,
        share_micros, retry_share_micros,
        cut_limit_micros = ${limit}::bigint and cut_retry_cap_micros = ${retryCap}::bigint as cut_current
      from spend_budget_usage
      where budget_id = ${budgetId}::bigint and period_start = ${periodStart}::timestamptz
      order by stripe
      for update
    ),
    carried as (
      -- A rolling hour's earlier buckets, read without locking: their reservations only settle, and an overdraw
      -- there is within the bound an overdraw anywhere is.
      select coalesce(sum(spent_micros + reserved_micros), 0)::bigint as used,
        coalesce(sum(retry_spent_micros + retry_reserved_micros), 0)::bigint as retry_used
      from spend_budget_usage
      where ${carriedFrom}::timestamptz is not null and budget_id = ${budgetId}::bigint
        and period_start >= ${carriedFrom}::timestamptz and period_start < ${periodStart}::timestamptz
    ),
    totals as (
      select sum(l.used)::bigint + c.used as used, sum(l.retry_used)::bigint + c.retry_used as retry_used,
        bool_and(l.cut_current) as all_current
      from locked l, carried c
      group by c.used, c.retry_used
    ),
    with_room as (
      -- A stale stripe (overdrawn, not cut yet, or cut from another limit) makes the whole period cut again: else
      -- every begin would come this slow way until the stripes with room ran out.
      select stripe from locked
      where (select all_current from totals) and used < share_micros and used + ${estimate}::bigint <= share_micros
        and retry_used + ${retryEstimate}::bigint <= retry_share_micros
      order by ${rankSql(sql`stripe`, ask.preferredStripe)}
      limit 1
    ),
    plan as (
      select coalesce((select stripe from with_room), ${ask.preferredStripe}::int) as stripe,
        not exists (select 1 from with_room) as recut,
        ${limit}::bigint - t.used - ${estimate}::bigint as left_over,
        ${retryCap}::bigint - t.retry_used - ${retryEstimate}::bigint as retry_left_over,
        greatest(1, least(${BUDGET_STRIPES}::bigint,
          (${limit}::bigint - t.used - ${estimate}::bigint) / greatest(${estimate}::bigint, 1)))::int as parts
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
          + ${partOf(sql`p.left_over`, ask.preferredStripe)} end,
        retry_share_micros = case when not p.recut then u.retry_share_micros else
          u.retry_spent_micros + u.retry_reserved_micros
          + case when u.stripe = p.stripe then ${retryEstimate}::bigint else 0 end
          + ${partOf(sql`p.retry_left_over`, ask.preferredStripe)} end,
        cut_limit_micros = ${limit}::bigint,
        cut_retry_cap_micros = ${retryCap}::bigint
      from plan p
      where u.budget_id = ${budgetId}::bigint and u.period_start = ${periodStart}::timestamptz
        and (p.recut or u.stripe = p.stripe)
      returning u.stripe, u.stripe = p.stripe as reserved_here
    )
    select (select stripe from taken where reserved_here) as stripe, (select count(*) from locked)::int as stripes`);
  const [answer] = [...rows];
  if (!answer || answer.stripes === 0) return 'gone';
  return answer.stripe === null ? 'full' : { budgetId, stripe: answer.stripe };
}

/** A stripe's place counted from the preferred one: the order begins try stripes in, and shares are handed out in. */
const rankSql = (stripe: SQL, preferred: number) =>
  sql`((${stripe} + ${BUDGET_STRIPES - preferred}::int) % ${BUDGET_STRIPES}::int)`;

/**
 * A stripe's part of what is left when shares are cut again: the first `p.parts` stripes from the preferred one
 * share it evenly (the remainder's micro-dollars one each to the first of them), the others get none.
 */
const partOf = (leftOver: SQL, preferred: number) => {
  const rank = rankSql(sql`u.stripe`, preferred);
  return sql`(case when ${rank} < p.parts then ${leftOver} / p.parts
    + case when ${rank} < ${leftOver} % p.parts then 1 else 0 end else 0 end)`;
};

/**
 * Each budget's spend counting at `now`, summed over its stripes, as a table to join in place of
 * `spend_budget_usage` on `budget_id`: one row per budget with spend in its period under way (for a rolling hour,
 * its last twelve five-minute buckets), `period_start` the window's start, with its spent, retry spent, seen,
 * reserved and retry reserved micro-dollars and its refusals.
 */
export function currentBudgetSpend(now: Date): SQL {
  const at = sql`${now.toISOString()}::timestamptz`;
  return sql`(
  select u.budget_id, min(w.start) as period_start, sum(u.spent_micros)::bigint as spent_micros,
    sum(u.retry_spent_micros)::bigint as retry_spent_micros, sum(u.seen_micros)::bigint as seen_micros,
    sum(u.reserved_micros)::bigint as reserved_micros, sum(u.retry_reserved_micros)::bigint as retry_reserved_micros,
    sum(u.refusals)::int as refusals
  from spend_budgets cb
  cross join lateral (select budget_window_start(cb.period, cb.reset_every_hours, cb.reset_from, ${at}) as start) w
  join spend_budget_usage u on u.budget_id = cb.id and u.period_start >= w.start and u.period_start <= ${at}
  group by u.budget_id)`;
}

/**
 * The new `cut_limit_micros` of a stripe whose spend just grew (a finish costing more than it reserved, spend only
 * seen): -1 when its spent and reserved (or its retries') now pass its share, which marks the period's shares stale.
 * Every begin then goes the slow way, which decides on the period's totals and cuts the shares again: spend past one
 * stripe's share is taken out of the others' room at once, not left for them to spend. `spent`, `reserved`,
 * `retrySpent` and `retryReserved` are the stripe's values after the change.
 */
export function overdrawnMarkSql(after: { spent: SQL; reserved: SQL; retrySpent: SQL; retryReserved: SQL }): SQL {
  return sql`case when ${after.spent} + ${after.reserved} > u.share_micros
    or ${after.retrySpent} + ${after.retryReserved} > u.retry_share_micros then -1 else u.cut_limit_micros end`;
}
