import type { TaskStatus } from '../../db/schema';

/** A task budget row as the step engine's statements return it (bigint columns arrive as text). */
export type BudgetRow = {
  owner: string;
  status: TaskStatus;
  retries_used: number;
  retry_allowance: number;
  spend_micros: string;
  reserved_micros: string;
  spend_ceiling_micros: string;
  deadline: string;
};

/** The columns every engine statement returns for a budget row. */
export const BUDGET_COLUMNS =
  'owner, status, retries_used, retry_allowance, spend_micros, reserved_micros, spend_ceiling_micros, deadline';

/** What the task has left: retries, room under its spend ceiling (after reservations) and time to its deadline. */
export function allowanceLeft(budget: BudgetRow, now: Date) {
  return {
    retriesLeft: budget.retry_allowance - budget.retries_used,
    spendLeftMicros: Number(budget.spend_ceiling_micros) - Number(budget.spend_micros) - Number(budget.reserved_micros),
    msLeft: Math.max(0, new Date(budget.deadline).getTime() - now.getTime()),
  };
}
