import { sql } from 'drizzle-orm';
import { budgetModelOf } from '@holdfast/protocol/inputs/spend-budget-input';
import type { Transaction } from '../../../db/client';
import { budgetAsks } from '../../budgets/budget-reservations';
import { chargesRetrySql, writeBegin } from '../begin-writes';
import { BUDGET_COLUMNS, type BudgetRow } from '../budget-row';
import type { ClaimedAttempt, GateInClaim, Refusal } from './gate';
import { exhaustedStop, inactiveTaskStop } from './task-stops';

/**
 * The task's own gate: active, before its deadline, a retry left in its allowance (for a retry of this
 * allowance) and room under its spend ceiling for this attempt's estimate. Its take is the begin's one write
 * (begin-writes.ts), which records the attempt and reserves its share in a guarded UPDATE of the task's row, so
 * concurrent begins never reserve past the ceiling; when the UPDATE matches nothing, the row is read again to
 * say which rule refused. The same statement reserves under the fleet's spend budgets where a free stripe has
 * room; the spend budget gate, next, decides for the rest.
 */
export const taskBudgetGate: GateInClaim = {
  name: 'task',
  async take(attempt, { key, estimate, now, facts, request: begun, budgetsInOrder }) {
    const { tx, request, attemptNumber, by } = attempt;
    const asks = budgetAsks(
      budgetsInOrder ? [] : facts.spendBudgets,
      {
        agent: request.agent,
        queue: request.queue,
        step: request.step,
        downstream: begun.downstream ?? null,
        model: begun.model === undefined ? null : budgetModelOf(begun.model),
      },
      now,
    );
    const written = await writeBegin(tx, request, { key, attemptNumber, estimate, now }, by, asks);
    attempt.budget = written.budget;
    attempt.budgetLeftover = written.leftover;
    attempt.budgetsTaken = written.budgetsTaken;
    attempt.preferredStripe = asks.preferredStripe;
    if (written.budget) return undefined;
    return whyRefused(
      tx,
      request.taskId,
      { attemptNumber, previousStartedAt: written.previousStartedAt },
      estimate,
      now,
    );
  },
};

async function whyRefused(
  tx: Transaction,
  taskId: string,
  attempt: Pick<ClaimedAttempt, 'attemptNumber'> & { previousStartedAt: string | null },
  estimate: number,
  now: Date,
): Promise<Refusal> {
  const [task] = await tx.execute<BudgetRow & { charges_retry: boolean }>(sql`
    select ${sql.raw(BUDGET_COLUMNS)}, ${chargesRetrySql({
      attemptNumber: sql`${attempt.attemptNumber}`,
      previousStartedAt: sql`${attempt.previousStartedAt}`,
      lastRedriveAt: sql`last_redrive_at`,
    })} as charges_retry
    from task_budgets where task_id = ${taskId}::text`);
  if (!task) throw new Error(`beginStep: task "${taskId}" has no budget`);
  if (task.status !== 'active') return inactiveTaskStop(task.status);
  if (new Date(task.deadline) <= now) {
    return exhaustedStop('deadline_passed', `the task's deadline ${new Date(task.deadline).toISOString()} has passed`);
  }
  if (task.charges_retry && task.retries_used >= task.retry_allowance) {
    return exhaustedStop('retry_ceiling', `no retry left: ${task.retries_used} of ${task.retry_allowance} used`);
  }
  return exhaustedStop(
    'budget_exhausted',
    `no room under the spend ceiling: spent ${task.spend_micros}, reserved ${task.reserved_micros}, this attempt needs ${estimate} of ${task.spend_ceiling_micros} micro-dollars (and nothing begins once the ceiling is reached)`,
  );
}
