import type { BudgetPeriod } from '@holdfast/protocol/inputs/spend-budget-input';

/** When the UTC period holding `at` began. */
export function periodStartOf(period: BudgetPeriod, at: Date): Date {
  const start = new Date(at.getTime());
  if (period === 'month') start.setUTCDate(1);
  if (period !== 'hour') start.setUTCHours(0);
  start.setUTCMinutes(0, 0, 0);
  return start;
}

/** When the UTC period holding `at` ends (the next one's start). */
export function periodEndOf(period: BudgetPeriod, at: Date): Date {
  const end = periodStartOf(period, at);
  if (period === 'hour') end.setUTCHours(end.getUTCHours() + 1);
  else if (period === 'day') end.setUTCDate(end.getUTCDate() + 1);
  else end.setUTCMonth(end.getUTCMonth() + 1);
  return end;
}
