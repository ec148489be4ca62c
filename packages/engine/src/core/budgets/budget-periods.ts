import { type SQL, sql } from 'drizzle-orm';
import type { BudgetPeriod } from '@holdfast/protocol/inputs/spend-budget-input';

/** What a budget's periods are: the period's kind, and for a custom one its length and first start. */
export interface PeriodSpec {
  period: BudgetPeriod;
  resetEveryHours: number | null;
  resetFrom: Date | null;
}

const HOUR_MS = 3_600_000;
/** A rolling hour's spend is kept per five-minute bucket; its window is the current bucket and the 11 before. */
export const ROLLING_BUCKET_MS = 300_000;
const ROLLING_WINDOW_BUCKETS = 12;

/**
 * Where the period holding `at` starts (for a rolling hour, the five-minute bucket holding it): the same as
 * budget_period_start() in SQL (migration 0063), which the statements that cannot ask the engine use.
 */
export function periodStartOf(spec: PeriodSpec, at: Date): Date {
  if (spec.period === 'rolling_hour') return new Date(Math.floor(at.getTime() / ROLLING_BUCKET_MS) * ROLLING_BUCKET_MS);
  if (spec.period === 'custom') {
    const { length, first } = customOf(spec);
    return new Date(first + Math.floor((at.getTime() - first) / length) * length);
  }
  const start = new Date(at.getTime());
  if (spec.period === 'month') start.setUTCDate(1);
  if (spec.period !== 'hour') start.setUTCHours(0);
  start.setUTCMinutes(0, 0, 0);
  return start;
}

/**
 * When the period holding `at` ends (the next one's start); for a rolling hour, when its current bucket ends and the
 * oldest bucket's spend leaves the window: the soonest a refused begin may find room.
 */
export function periodEndOf(spec: PeriodSpec, at: Date): Date {
  const end = periodStartOf(spec, at);
  if (spec.period === 'rolling_hour') return new Date(end.getTime() + ROLLING_BUCKET_MS);
  if (spec.period === 'custom') return new Date(end.getTime() + customOf(spec).length);
  if (spec.period === 'hour') end.setUTCHours(end.getUTCHours() + 1);
  else if (spec.period === 'day') end.setUTCDate(end.getUTCDate() + 1);
  else end.setUTCMonth(end.getUTCMonth() + 1);
  return end;
}

/**
 * The start of what counts now: the period's start, or for a rolling hour the oldest of its twelve buckets (the same
 * as budget_window_start() in SQL).
 */
export function windowStartOf(spec: PeriodSpec, at: Date): Date {
  const start = periodStartOf(spec, at);
  if (spec.period !== 'rolling_hour') return start;
  return new Date(start.getTime() - (ROLLING_WINDOW_BUCKETS - 1) * ROLLING_BUCKET_MS);
}

/** How long a period lasts, in milliseconds (a month's at `at`; a rolling hour's window). */
export function periodLengthOf(spec: PeriodSpec, at: Date): number {
  if (spec.period === 'rolling_hour') return HOUR_MS;
  return periodEndOf(spec, at).getTime() - periodStartOf(spec, at).getTime();
}

function customOf(spec: PeriodSpec): { length: number; first: number } {
  if (spec.resetEveryHours === null || spec.resetFrom === null) {
    throw new Error('a custom budget period needs its length and first start');
  }
  return { length: spec.resetEveryHours * HOUR_MS, first: spec.resetFrom.getTime() };
}

/** budget_period_start() of a budget the engine holds, at a SQL moment. */
export function periodStartSql(spec: PeriodSpec, at: SQL): SQL {
  return sql`budget_period_start(${spec.period}::text, ${spec.resetEveryHours}::integer,
    ${spec.resetFrom?.toISOString() ?? null}::timestamptz, ${at})`;
}
