import 'server-only';
import { and, asc, eq, inArray, or, sql } from 'drizzle-orm';
import type { Executor } from '@holdfast/engine/db';
import { attempts, deadLetters, holds, idempotencyKeys, runs, taskBudgets } from '@holdfast/engine/db/schema';

/** Sub-tasks a task's page lists; a task that started more says so. */
export const SUB_TASKS_SHOWN = 50;

/** Everything known about one task, in order: the triage view opened from an alert. */
export async function getTaskTimeline(db: Executor, taskId: string) {
  const [budget] = await db.select().from(taskBudgets).where(eq(taskBudgets.taskId, taskId));
  const timeline = await db
    .select({
      id: attempts.id,
      step: attempts.step,
      agent: attempts.agent,
      attemptNumber: attempts.attemptNumber,
      startedAt: attempts.startedAt,
      outcome: attempts.outcome,
      errorClass: attempts.errorClass,
      errorText: attempts.errorText,
      latencyMs: attempts.latencyMs,
      costMicros: attempts.costMicros,
      key: attempts.idempotencyKey,
      keyStatus: idempotencyKeys.status,
      runKey: attempts.runKey,
      runStatus: runs.status,
    })
    .from(attempts)
    .leftJoin(idempotencyKeys, eq(idempotencyKeys.key, attempts.idempotencyKey))
    .leftJoin(runs, eq(runs.runKey, attempts.runKey))
    .where(eq(attempts.taskId, taskId))
    .orderBy(asc(attempts.startedAt), asc(attempts.step), asc(attempts.attemptNumber));

  const letters = await db
    .select()
    .from(deadLetters)
    .where(eq(deadLetters.taskId, taskId))
    .orderBy(asc(deadLetters.createdAt));
  const keys = [...new Set(timeline.map((row) => row.key).filter((key): key is string => key !== null))];
  const holdTargets = [
    and(eq(holds.itemType, 'task'), eq(holds.itemId, taskId)),
    letters.length > 0
      ? and(
          eq(holds.itemType, 'dead_letter'),
          inArray(
            holds.itemId,
            letters.map((letter) => String(letter.id)),
          ),
        )
      : undefined,
    keys.length > 0 ? and(eq(holds.itemType, 'key'), inArray(holds.itemId, keys)) : undefined,
  ];
  const taskHolds = await db
    .select()
    .from(holds)
    .where(or(...holdTargets))
    .orderBy(asc(holds.openedAt));

  // A task claimed under a key but not yet reported has only its keys: still a task, not a 404.
  const [keyCount] = await db
    .select({ count: sql<number>`count(*)`.mapWith(Number) })
    .from(idempotencyKeys)
    .where(eq(idempotencyKeys.taskId, taskId));
  const taskKeys = keyCount?.count ?? 0;
  if (!budget && timeline.length === 0 && letters.length === 0 && taskHolds.length === 0 && taskKeys === 0)
    return undefined;
  // The tasks it started (by the index on parent_task_id), with their status; the first SUB_TASKS_SHOWN.
  const subTasks = await db
    .select({ taskId: taskBudgets.taskId, agent: taskBudgets.agent, status: taskBudgets.status })
    .from(taskBudgets)
    .where(eq(taskBudgets.parentTaskId, taskId))
    .orderBy(asc(taskBudgets.createdAt), asc(taskBudgets.taskId))
    .limit(SUB_TASKS_SHOWN + 1);
  return {
    taskId,
    budget,
    timeline,
    deadLetters: letters,
    holds: taskHolds,
    keyCount: taskKeys,
    subTasks: subTasks.slice(0, SUB_TASKS_SHOWN),
    moreSubTasks: subTasks.length > SUB_TASKS_SHOWN,
  };
}

export type TaskTimeline = NonNullable<Awaited<ReturnType<typeof getTaskTimeline>>>;
