import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { readTaskBudget } from '../budgets/task-budget';
import { taskBudgets } from '../../db/schema';
import { knownOwnerOrDefault } from '../holds/known-owner';
import { fixedStatement } from '../kernel/run-statement';
import type { BeginStepRequest } from './step-protocol';

/** The names that decide who may act on a task, and who gets its holds. */
export interface TaskNames {
  agent: string;
  queue: string;
  owner: string;
}

const placeholder = sql.placeholder;

/**
 * A task's row, made by its first begin, in the begin's transaction: the allowance its begin gave, unless an
 * admin's override of the step's policy sets another (read in the same statement), an owner known to Holdfast
 * or the default owner (known-owner.ts), and its deadline from this begin. Nothing when the task has a row
 * already (a concurrent first begin made it: the insert waits for that one to commit).
 */
const insertNewTask = fixedStatement<TaskNames>((db) =>
  db
    .insert(taskBudgets)
    .values({
      taskId: placeholder('taskId'),
      agent: placeholder('agent'),
      queue: placeholder('queue'),
      owner: knownOwnerOrDefault(placeholder('owner'), placeholder('defaultOwner')),
      parentTaskId: placeholder('parentTaskId'),
      retryAllowance: sql`coalesce(
        (select retry_allowance from step_policies where agent = ${placeholder('agent')}::text and step = ${placeholder('step')}::text),
        ${placeholder('retryAllowance')}::int)`,
      spendCeilingMicros: placeholder('spendCeilingMicros'),
      timeAllowanceMs: placeholder('timeAllowanceMs'),
      deadline: placeholder('deadline'),
    })
    .onConflictDoNothing({ target: taskBudgets.taskId })
    .returning({ agent: taskBudgets.agent, queue: taskBudgets.queue, owner: taskBudgets.owner }),
);

/**
 * The task's names on a begin of a task not read yet: its row made with the begin's own values (insertNewTask),
 * or, when another begin made it first, that row (`made` false: the caller judges the request against it).
 */
export async function taskOnBegin(
  db: Executor,
  request: BeginStepRequest & { queue: string },
  now: Date,
  defaultOwner: string,
): Promise<{ task: TaskNames; made: boolean }> {
  const [created] = await insertNewTask(db, {
    taskId: request.taskId,
    agent: request.agent,
    queue: request.queue,
    owner: request.owner,
    defaultOwner,
    parentTaskId: request.parentTaskId ?? null,
    step: request.step,
    retryAllowance: request.retryAllowance,
    spendCeilingMicros: request.spendCeilingMicros,
    timeAllowanceMs: request.timeAllowanceMs,
    deadline: new Date(now.getTime() + request.timeAllowanceMs),
  });
  if (created) return { task: created, made: true };
  const existing = await readTaskBudget(db, request.taskId);
  if (!existing) throw new Error(`beginStep: task "${request.taskId}" conflicted but has no row`);
  return { task: existing, made: false };
}
