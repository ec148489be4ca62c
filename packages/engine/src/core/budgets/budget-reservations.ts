import { randomInt } from 'node:crypto';
import { type SQL, sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import { periodStartOf, windowStartOf } from './budget-periods';
import { BUDGET_STRIPES, overdrawnMarkSql, reserveAcrossStripes, type StripeTaken } from './budget-stripes';
import type { SpendBudget } from './spend-budgets';

/**
 * A reservation an attempt holds under a budget: the budget, the period's start, the stripe (absent on reservations
 * made before periods had stripes: stripe 0), and whether it is a retry's.
 */
export interface BudgetReservation {
  b: number;
  p: string;
  s?: number;
  r: boolean;
}

/** What a begin is, for the budgets that cover it. */
export interface BudgetedWork {
  agent: string;
  queue: string;
  step: string;
  downstream: string | null;
  owner: string;
  /** The model the begin declared, lower-cased; null when it named none (no model budget covers it then). */
  model: string | null;
}

/** The budgets a begin reserves under: every one whose scope takes in the work. */
export function budgetsCovering(budgets: SpendBudget[], work: BudgetedWork): SpendBudget[] {
  return budgets.filter((budget) => budget.scope === 'fleet' || scopeValueOf(budget, work) === budget.scopeValue);
}

/**
 * What the begin's write statement asks of the budgets before it knows the task's owner: each budget that may cover
 * the work (an owner's names the owner it needs; the statement compares it with the task's row), as the JSON array
 * the statement reads, and the stripe it tries first. An empty array when no budget may cover it.
 */
export function budgetAsks(budgets: SpendBudget[], work: Omit<BudgetedWork, 'owner'>, now: Date) {
  const asked = budgets.filter(
    (budget) =>
      budget.scope === 'fleet' || budget.scope === 'owner' || scopeValueOf(budget, work) === budget.scopeValue,
  );
  const rows = asked.map((budget) => ({
    budget_id: budget.id,
    period_start: periodStartOf(budget, now).toISOString(),
    limit_micros: budget.limitMicros,
    retry_cap_micros: retryCapOf(budget),
    owner: budget.scope === 'owner' ? budget.scopeValue : null,
  }));
  return { budgets: JSON.stringify(rows), preferredStripe: randomInt(BUDGET_STRIPES) };
}

function scopeValueOf(budget: SpendBudget, work: Omit<BudgetedWork, 'owner'> & { owner?: string }) {
  if (budget.scope === 'fleet') return '';
  if (budget.scope === 'owner') return work.owner;
  return work[budget.scope] ?? '';
}

/** What retries may use of a budget's limit: all of it, or what its first attempts' share leaves. */
const retryCapOf = (budget: SpendBudget) =>
  budget.firstAttemptPercent === null
    ? budget.limitMicros
    : Math.floor((budget.limitMicros * (100 - budget.firstAttemptPercent)) / 100);

/**
 * Thrown when the begin's write statement took a free stripe of a budget ordered after one it must still wait for:
 * waiting while holding it could close a circle with a finish that locks in budget order. The claim is run again
 * with every budget reserved in order (Begin.budgetsInOrder). Rare: it needs some budgets full or busy, others not.
 */
export class BudgetsTakenOutOfOrder extends Error {
  constructor() {
    super('spend budgets: a free stripe was taken out of budget order; the claim runs again in order');
  }
}

/**
 * The begin's write statement reserved on a free stripe of each budget it could (`takenFast`); this reserves under
 * the rest, in budget order, across their stripes (budget-stripes.ts), and writes every reservation on the key for
 * the finish. Answers the budgets without room: any means the begin is refused, and its transaction (this
 * included) is rolled back. A budget deleted since the begin read it covers nothing and refuses nothing.
 */
export async function reserveUnderRemainingBudgets(
  tx: Transaction,
  key: string,
  covering: SpendBudget[],
  takenFast: StripeTaken[],
  attempt: { estimate: number; retry: boolean; now: Date; preferredStripe: number },
): Promise<SpendBudget[]> {
  const ask = {
    estimate: attempt.estimate,
    retryEstimate: attempt.retry ? attempt.estimate : 0,
    preferredStripe: attempt.preferredStripe,
  };
  const remaining = covering
    .filter((budget) => !takenFast.some((reservation) => reservation.budgetId === budget.id))
    .sort((a, b) => a.id - b.id);
  if (remaining.length === 0) return [];
  const lastTakenFast = Math.max(...takenFast.map((reservation) => reservation.budgetId));
  if (lastTakenFast > remaining[0]!.id) throw new BudgetsTakenOutOfOrder();
  const notes: BudgetReservation[] = takenFast.map((reservation) => noteOf(reservation, covering, attempt));
  const refusing: SpendBudget[] = [];
  for (const budget of remaining) {
    const striped = {
      budgetId: budget.id,
      periodStart: periodStartOf(budget, attempt.now).toISOString(),
      carriedFrom: budget.period === 'rolling_hour' ? windowStartOf(budget, attempt.now).toISOString() : null,
      limitMicros: budget.limitMicros,
      retryCapMicros: retryCapOf(budget),
    };
    const reservation = await reserveAcrossStripes(tx, striped, ask);
    if (reservation === 'full') refusing.push(budget);
    else if (reservation !== 'gone') notes.push(noteOf(reservation, covering, attempt));
  }
  if (refusing.length === 0) {
    await tx.execute(sql`
      update idempotency_keys set budget_reservations = ${JSON.stringify(notes)}::jsonb where key = ${key}::text`);
  }
  return refusing;
}

/** What the finish reads of a reservation: the budget, the period it began in, the stripe, and whether a retry's. */
function noteOf(
  reservation: StripeTaken,
  covering: SpendBudget[],
  attempt: { retry: boolean; now: Date },
): BudgetReservation {
  const budget = covering.find((candidate) => candidate.id === reservation.budgetId)!;
  return {
    b: reservation.budgetId,
    p: periodStartOf(budget, attempt.now).toISOString(),
    s: reservation.stripe,
    r: attempt.retry,
  };
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
export function settleBudgetsCte(costMicros: SQL, taskSettled: SQL = sql`true`): SQL {
  const after = {
    reserved: sql`greatest(0, u.reserved_micros - begun.reserved_micros)`,
    spent: sql`(u.spent_micros + ${costMicros})`,
    retryReserved: sql`(case when l.retry then greatest(0, u.retry_reserved_micros - begun.reserved_micros)
      else u.retry_reserved_micros end)`,
    retrySpent: sql`(u.retry_spent_micros + case when l.retry then ${costMicros} else 0 end)`,
  };
  // Locked in the budgets' order, as the begins lock them, and after the task's row (`taskSettled`, a condition
  // that reads the statement's task update, runs it first): two finishes (or a finish and a begin) sharing budgets
  // never wait on each other in a circle.
  return sql`budgets_locked as (
  select u.budget_id, u.period_start, u.stripe, r.r as retry
  from begun
  cross join jsonb_to_recordset(coalesce(begun.budget_reservations, '[]'::jsonb))
    as r(b bigint, p timestamptz, s smallint, r boolean)
  join spend_budget_usage u on u.budget_id = r.b and u.period_start = r.p and u.stripe = coalesce(r.s, 0)
  where ${taskSettled}
  order by u.budget_id, u.stripe
  for update of u
),
budgets_settled as (
  update spend_budget_usage u set
    reserved_micros = ${after.reserved},
    spent_micros = ${after.spent},
    retry_reserved_micros = ${after.retryReserved},
    retry_spent_micros = ${after.retrySpent},
    cut_limit_micros = ${overdrawnMarkSql(after)}
  from begun, budgets_locked l
  where u.budget_id = l.budget_id and u.period_start = l.period_start and u.stripe = l.stripe
  returning 1
)`;
}
