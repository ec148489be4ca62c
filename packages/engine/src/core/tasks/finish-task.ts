import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { taskBudgets, type FinishedTaskStatus, type TaskStatus } from '../../db/schema';
import { agentOfTask } from '../identity/agent-targets';
import { authorize, enforceTokenLimits } from '../identity/authorization';
import type { CoreContext } from '../kernel/context';
import { NotFoundError, StateConflictError } from '@holdfast/protocol/errors';
import { resolveTaskForActor } from './task-agent';
import { parseInput } from '@holdfast/protocol/validation';
import { finishTaskInput, type FinishTaskInput } from '@holdfast/protocol/inputs/finish-task-input';

export { finishTaskInput, type FinishTaskInput } from '@holdfast/protocol/inputs/finish-task-input';

/** States a task may be finished from: work it could still do, or work parked as idle. */
const UNFINISHED: TaskStatus[] = ['active', 'frozen'];

export interface FinishTaskResult {
  taskId: string;
  status: FinishedTaskStatus;
  /** False when the task had already ended this way: nothing changed. */
  changed: boolean;
}

/**
 * Ends a task for good: completed, failed (given up by the agent) or
 * discarded. A finished task starts no step and is never frozen; a frozen
 * hold left on it is closed by the reconciliation sweep. Finishing again the
 * same way changes nothing; another way, or a dead-lettered task (a person
 * decides those through its hold), is refused with STATE_CONFLICT.
 */
export async function finishTask(ctx: CoreContext, input: FinishTaskInput): Promise<FinishTaskResult> {
  authorize(ctx, 'agent.coordinate');
  const parsed = parseInput(finishTaskInput, input);
  const { outcome } = parsed;
  // A token limited to agents means its own agent's task, aliased when another agent's has the id (task-alias.ts).
  const taskId = await resolveTaskForActor(ctx, parsed.taskId);
  await enforceTokenLimits(ctx, () => agentOfTask(ctx.db, taskId));
  if (await markTaskFinished(ctx.db, taskId, outcome)) return { taskId, status: outcome, changed: true };

  const [task] = await ctx.db
    .select({ status: taskBudgets.status })
    .from(taskBudgets)
    .where(eq(taskBudgets.taskId, taskId));
  if (!task) throw new NotFoundError(`No task "${taskId}": a task exists once its first step has begun`);
  if (task.status === outcome) return { taskId, status: outcome, changed: false };
  throw new StateConflictError(
    `Task "${taskId}" is ${task.status.replace('_', ' ')}; it cannot be finished as ${outcome}`,
  );
}

/** The state change itself, guarded by the task's current state; true when it happened. */
export async function markTaskFinished(db: Executor, taskId: string, outcome: FinishedTaskStatus): Promise<boolean> {
  const finished = await db
    .update(taskBudgets)
    .set({ status: outcome, finishedAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(taskBudgets.taskId, taskId), inArray(taskBudgets.status, UNFINISHED)))
    .returning({ taskId: taskBudgets.taskId });
  return finished.length > 0;
}
