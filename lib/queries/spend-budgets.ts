import 'server-only';
import { sql } from 'drizzle-orm';
import type { Executor } from '@holdfast/engine/db';
import {
  currentBudgetSpend,
  periodEndOf,
  readSpendBudgets,
  windowStartOf,
  type SpendBudget,
} from '@holdfast/engine/core';

/** A budget with its period under way: what is spent (and seen), reserved, by retries, refused, and a forecast. */
export interface SpendBudgetView extends SpendBudget {
  /** Where what counts now began: the period's start, or for a rolling hour its oldest five minutes. */
  periodStart: Date;
  /** When the period turns; for a rolling hour, when its oldest five minutes leave it next. */
  periodEnd: Date;
  spentMicros: number;
  /** The part of `spent` Holdfast only saw (reported attempts): counted, not refused. */
  seenMicros: number;
  retrySpentMicros: number;
  reservedMicros: number;
  refusals: number;
  /** When the limit is reached at this period's rate so far; null when it is not reached before the period ends. */
  exhaustedAt: Date | null;
}

interface UsageRow extends Record<string, unknown> {
  budget_id: string;
  period_start: Date | string;
  spent: string;
  seen: string;
  retry_spent: string;
  reserved: string;
  refusals: number;
}

/** Every budget with its current period's figures (one read of the periods under way). */
export async function getSpendBudgets(db: Executor, now: Date): Promise<SpendBudgetView[]> {
  const budgets = await readSpendBudgets(db);
  if (budgets.length === 0) return [];
  const rows = await db.execute<UsageRow>(sql`
    select u.budget_id, u.period_start, u.spent_micros as spent, u.seen_micros as seen,
      u.retry_spent_micros as retry_spent, u.reserved_micros as reserved, u.refusals
    from ${currentBudgetSpend(now)} u`);
  const usage = new Map([...rows].map((row) => [Number(row.budget_id), row]));
  return budgets.map((budget) => {
    const periodStart = windowStartOf(budget, now);
    const periodEnd = periodEndOf(budget, now);
    const row = usage.get(budget.id);
    const spentMicros = Number(row?.spent ?? 0);
    const reservedMicros = Number(row?.reserved ?? 0);
    return {
      ...budget,
      periodStart,
      periodEnd,
      spentMicros,
      seenMicros: Number(row?.seen ?? 0),
      retrySpentMicros: Number(row?.retry_spent ?? 0),
      reservedMicros,
      refusals: row?.refusals ?? 0,
      // A rolling hour never runs out at a moment: what leaves it makes room as what comes in fills it.
      exhaustedAt:
        budget.period === 'rolling_hour'
          ? null
          : forecast(budget.limitMicros, spentMicros + reservedMicros, periodStart, periodEnd, now),
    };
  });
}

/** At the rate spent so far in the period, when the limit is reached; null if not before the period ends. */
function forecast(limit: number, used: number, start: Date, end: Date, now: Date): Date | null {
  if (used >= limit) return now;
  const elapsed = now.getTime() - start.getTime();
  if (used <= 0 || elapsed <= 0) return null;
  const at = now.getTime() + ((limit - used) * elapsed) / used;
  return at < end.getTime() ? new Date(at) : null;
}
