import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { holds } from '../../db/schema';
import { writeAuditRecords } from '../audit/audit-log';
import { authorize } from '../identity/authorization';
import { actorLabel, nowOf, SWEEPER, type Actor, type CoreContext } from '../kernel/context';
import { parseInput } from '@holdfast/protocol/validation';
import { type FreezeIdleTasksOptions, freezeIdleTasksOptions } from './freeze-idle-tasks-input';

export { DEFAULT_FROZEN_AFTER_DAYS, type FreezeIdleTasksOptions } from './freeze-idle-tasks-input';

/** What one pass did: the tasks it froze, and whether it left none idle behind it. */
export interface FreezePass {
  frozen: string[];
  /** False when the time budget ran out with tasks still idle: the next pass carries on. */
  finished: boolean;
}

/**
 * Active tasks whose state has not changed for `idleDays` are frozen: parked
 * with a `frozen` hold for their owner instead of going back into a silent
 * retry. runStep refuses work for a frozen task until a person resumes it.
 *
 * Works in batches, each its own transaction, until no idle task is left or the
 * time budget is spent. Every batch commits what it froze, so a pass that stops
 * half-way (a crash, the budget) loses nothing and a later pass simply continues.
 */
export async function freezeIdleTasks(ctx: CoreContext, options: FreezeIdleTasksOptions = {}): Promise<FreezePass> {
  const { idleDays, batchSize, timeBudgetMs } = parseInput(freezeIdleTasksOptions, options);
  const actor = authorize({ ...ctx, actor: ctx.actor ?? SWEEPER }, 'hold.open');
  const startedAt = nowOf(ctx).getTime();
  const frozen: string[] = [];
  for (;;) {
    const batch = await ctx.db.transaction((tx) => freezeBatch(tx, actor, idleDays, batchSize));
    frozen.push(...batch);
    // A short batch found no more idle tasks, bar those a concurrent pass holds locked (theirs to freeze).
    if (batch.length < batchSize) return { frozen, finished: true };
    if (nowOf(ctx).getTime() - startedAt >= timeBudgetMs) return { frozen, finished: false };
  }
}

/**
 * Freezes up to `batchSize` of the longest-idle active tasks and opens one hold
 * each, audited, in the caller's transaction: three bounded statements. SKIP
 * LOCKED lets concurrent passes take disjoint batches; a task another pass froze
 * meanwhile fails the re-checked status and is not taken, so no task is frozen
 * twice, and the open-hold index makes a second hold on an item impossible.
 */
async function freezeBatch(tx: Executor, actor: Actor, idleDays: number, batchSize: number): Promise<string[]> {
  const tasks = await tx.execute<{ task_id: string; owner: string; idle_since: Date | string }>(sql`
    with picked as (
      select task_id, updated_at from task_budgets
      where status = 'active' and updated_at < now() - ${`${idleDays} days`}::interval
      order by updated_at
      limit ${batchSize}
      for update skip locked
    )
    update task_budgets set status = 'frozen', updated_at = now()
    from picked
    where task_budgets.task_id = picked.task_id and task_budgets.status = 'active'
    returning task_budgets.task_id, task_budgets.owner, picked.updated_at as idle_since`);
  if (tasks.length === 0) return [];

  // Not parsed as an input: every value comes from the task's stored row (its owner was checked when
  // the task was made), and a rule tightened since must not make one old task stop every pass.
  const requests = tasks.map((task) => ({
    itemType: 'task' as const,
    itemId: task.task_id,
    reason: 'frozen' as const,
    detail: `No state change since ${new Date(task.idle_since).toISOString()} (over ${idleDays} days); resume to let it run again, or discard`,
    owner: task.owner,
  }));
  // A task that already has an open hold (a mismatch, say) keeps that one: its owner already looks at it.
  const opened = await tx
    .insert(holds)
    .values(requests.map((request) => ({ ...request, openedBy: actorLabel(actor) })))
    .onConflictDoNothing({ target: [holds.itemType, holds.itemId], where: sql`${holds.status} = 'open'` })
    .returning();
  await writeAuditRecords(
    tx,
    actor,
    opened.map((hold) => ({
      action: 'hold.open',
      targetType: 'hold',
      targetId: String(hold.id),
      reason: hold.detail,
      after: { itemType: hold.itemType, itemId: hold.itemId, reason: hold.reason, owner: hold.owner },
    })),
  );
  return tasks.map((task) => task.task_id);
}
