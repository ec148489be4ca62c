import { and, eq, sql } from 'drizzle-orm';
import { taskBudgets } from '../../db/schema';
import { SWEEPER, type CoreContext } from '../context';
import { openHold } from './open-hold';

export const DEFAULT_FROZEN_AFTER_DAYS = 3;

/**
 * Active tasks whose state has not changed for `idleDays` are frozen: parked
 * with a `frozen` hold for their owner instead of going back into a silent
 * retry. runStep refuses work for a frozen task until a person resumes it.
 * Returns the frozen task ids.
 */
export async function freezeIdleTasks(
  ctx: CoreContext,
  options: { idleDays?: number; limit?: number } = {},
): Promise<string[]> {
  const idleDays = options.idleDays ?? DEFAULT_FROZEN_AFTER_DAYS;
  // Only active tasks: a finished one (completed, failed, discarded) has no work left to
  // park however long it stays unchanged, and a dead-lettered one already has its hold.
  const isIdle = and(
    eq(taskBudgets.status, 'active'),
    sql`${taskBudgets.updatedAt} < now() - ${`${idleDays} days`}::interval`,
  );
  const idle = await ctx.db
    .select({ taskId: taskBudgets.taskId, owner: taskBudgets.owner, updatedAt: taskBudgets.updatedAt })
    .from(taskBudgets)
    .where(isIdle)
    .limit(options.limit ?? 500);

  const frozen: string[] = [];
  for (const task of idle) {
    await ctx.db.transaction(async (tx) => {
      // Re-checked by the UPDATE itself: the task may have moved since the scan.
      const changed = await tx
        .update(taskBudgets)
        .set({ status: 'frozen', updatedAt: sql`now()` })
        .where(and(eq(taskBudgets.taskId, task.taskId), isIdle))
        .returning({ taskId: taskBudgets.taskId });
      if (changed.length === 0) return;
      await openHold(
        { db: tx, actor: ctx.actor ?? SWEEPER },
        {
          itemType: 'task',
          itemId: task.taskId,
          reason: 'frozen',
          detail: `No state change since ${task.updatedAt.toISOString()} (over ${idleDays} days); resume to let it run again, or discard`,
          owner: task.owner,
        },
      );
      frozen.push(task.taskId);
    });
  }
  return frozen;
}
