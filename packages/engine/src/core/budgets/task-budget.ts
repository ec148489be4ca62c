import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { taskBudgets, type TaskBudget } from '../../db/schema';
import { DEFAULT_CORE_POLICY } from '../kernel/context';
import { knownOwnerOrDefault } from '../holds/known-owner';
import { taskBudgetInput, type TaskBudgetInput } from '@holdfast/protocol/inputs/task-budget-input';
import { parseInput } from '@holdfast/protocol/validation';

export { taskBudgetInput, type TaskBudgetInput } from '@holdfast/protocol/inputs/task-budget-input';

/**
 * The task's budget, created on first use with the given allowance; later calls keep the first.
 * Its owner must be a known team or person (known-owner.ts), else it is `defaultOwner`.
 */
export async function ensureTaskBudget(
  db: Executor,
  input: TaskBudgetInput,
  now: Date = new Date(),
  defaultOwner: string = DEFAULT_CORE_POLICY.defaultOwner!,
): Promise<TaskBudget> {
  const budget = parseInput(taskBudgetInput, input);
  const [created] = await db
    .insert(taskBudgets)
    .values({
      ...budget,
      queue: budget.queue ?? budget.agent,
      owner: knownOwnerOrDefault(budget.owner, defaultOwner),
      deadline: new Date(now.getTime() + budget.timeAllowanceMs),
    })
    .onConflictDoNothing({ target: taskBudgets.taskId })
    .returning();
  if (created) return created;
  const [existing] = await db.select().from(taskBudgets).where(eq(taskBudgets.taskId, budget.taskId));
  if (!existing) throw new Error('ensureTaskBudget: conflict without a budget');
  return existing;
}

/** The task's budget row, if the task has been seen. */
export async function readTaskBudget(db: Executor, taskId: string): Promise<TaskBudget | undefined> {
  const [task] = await db.select().from(taskBudgets).where(eq(taskBudgets.taskId, taskId));
  return task;
}

export type RetryGrant =
  | { granted: true }
  | { granted: false; reason: 'retry_ceiling' | 'budget_exhausted' | 'not_active' };

/**
 * Takes one retry from the task's shared allowance. A single guarded UPDATE
 * decides, so a burst of concurrent failures can never take more retries than
 * the allowance holds. Called before the retry runs: a crash afterwards can
 * only over-count.
 */
export async function consumeRetry(db: Executor, taskId: string): Promise<RetryGrant> {
  const t = taskBudgets;
  const granted = await db
    .update(t)
    .set({ retriesUsed: sql`${t.retriesUsed} + 1`, updatedAt: sql`now()` })
    .where(
      and(
        eq(t.taskId, taskId),
        eq(t.status, 'active'),
        sql`${t.retriesUsed} < ${t.retryAllowance}`,
        sql`${t.spendMicros} < ${t.spendCeilingMicros}`,
        sql`${t.deadline} > now()`,
      ),
    )
    .returning({ taskId: t.taskId });
  if (granted.length > 0) return { granted: true };

  const [budget] = await db
    .select({
      status: t.status,
      used: t.retriesUsed,
      allowance: t.retryAllowance,
      late: sql<boolean>`${t.deadline} <= now()`,
    })
    .from(t)
    .where(eq(t.taskId, taskId));
  if (!budget) throw new Error(`consumeRetry: task "${taskId}" has no budget`);
  if (budget.status !== 'active') return { granted: false, reason: 'not_active' };
  if (budget.used >= budget.allowance) return { granted: false, reason: 'retry_ceiling' };
  return { granted: false, reason: 'budget_exhausted' };
}
