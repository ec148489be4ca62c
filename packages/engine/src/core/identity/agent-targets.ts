import { eq } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { idempotencyKeys, runs, slotLocks, taskAgents } from '../../db/schema';
import type { ActionTarget } from './authorization';

/**
 * The agent (and queue) an operation acts for, read from the row it names,
 * for a token's limits (see enforceTokenLimits). An unknown row names no
 * agent: the operation itself then answers NOT_FOUND, or has nothing to guard.
 */

/** A task acts for the agent and queue it was first seen with (see tasks/task-agent.ts). */
export async function agentOfTask(db: Executor, taskId: string): Promise<ActionTarget> {
  const [task] = await db
    .select({ agent: taskAgents.agent, queue: taskAgents.queue })
    .from(taskAgents)
    .where(eq(taskAgents.taskId, taskId));
  return { agent: task?.agent, queue: task?.queue };
}

export async function agentOfRun(db: Executor, runKey: string): Promise<ActionTarget> {
  const [run] = await db.select({ agent: runs.agent }).from(runs).where(eq(runs.runKey, runKey));
  return { agent: run?.agent };
}

/** A slot acts for the agent of the run that holds it. */
export async function agentOfSlot(db: Executor, slot: string): Promise<ActionTarget> {
  const [lock] = await db
    .select({ agent: runs.agent })
    .from(slotLocks)
    .innerJoin(runs, eq(runs.runKey, slotLocks.holderRunKey))
    .where(eq(slotLocks.slot, slot));
  return { agent: lock?.agent };
}

/** A step key carries its agent and queue; a raw key with a task acts for the task's agent. */
export async function targetOfKey(db: Executor, key: string): Promise<ActionTarget> {
  const [row] = await db
    .select({ agent: idempotencyKeys.agent, queue: idempotencyKeys.queue, taskId: idempotencyKeys.taskId })
    .from(idempotencyKeys)
    .where(eq(idempotencyKeys.key, key));
  if (!row) return {};
  if (row.agent) return { agent: row.agent, queue: row.queue };
  return row.taskId ? agentOfTask(db, row.taskId) : {};
}
