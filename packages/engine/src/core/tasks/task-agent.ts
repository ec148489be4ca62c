import { eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { taskAgents, type TaskFirstPath } from '../../db/schema';
import { enforceTokenLimits, hasTokenLimits } from '../identity/authorization';
import { aliasOf, refuseForeignAlias, storedTaskIdFor } from './task-alias';
import type { Actor, CoreContext } from '../kernel/context';
import { TaskAgentMismatchError } from '@holdfast/protocol/errors';

/** The agent and queue a task was first seen with: they decide who may act on it. */
export interface TaskAgent {
  taskId: string;
  agent: string;
  queue: string;
}

/** What a request says it acts for; a name it leaves out is not compared. */
export interface ClaimedAgent {
  agent?: string | null;
  queue?: string | null;
}

/** The task's agent and queue, from task_agents: whichever path saw the task first stored them there. */
export async function readTaskAgent(db: Executor, taskId: string): Promise<TaskAgent | undefined> {
  const [task] = await db
    .select({ taskId: taskAgents.taskId, agent: taskAgents.agent, queue: taskAgents.queue })
    .from(taskAgents)
    .where(eq(taskAgents.taskId, taskId));
  return task;
}

/** The stored agent and queue of many tasks in one read (a batch's): tasks not seen yet are absent. */
export async function readTaskAgents(db: Executor, taskIds: string[]): Promise<Map<string, TaskAgent>> {
  const unique = [...new Set(taskIds)];
  if (unique.length === 0) return new Map();
  const tasks = await db
    .select({ taskId: taskAgents.taskId, agent: taskAgents.agent, queue: taskAgents.queue })
    .from(taskAgents)
    .where(inArray(taskAgents.taskId, unique));
  return new Map(tasks.map((task) => [task.taskId, task]));
}

/**
 * The one rule for acting on a task (DOMAIN invariant 17). An existing task is
 * judged by what is stored: a token whose limits exclude its agent or queue is
 * refused with FORBIDDEN, and a request naming another agent or queue with
 * TASK_AGENT_MISMATCH, before anything is written. A task not seen yet is
 * judged by the names in the request, which it will be stored with.
 */
export async function authorizeTaskAgent(
  ctx: CoreContext,
  stored: TaskAgent | undefined,
  claimed: ClaimedAgent & { taskId: string },
): Promise<void> {
  if (!stored) {
    await enforceTokenLimits(ctx, { agent: claimed.agent, queue: claimed.queue ?? claimed.agent });
    return;
  }
  await enforceTokenLimits(ctx, { agent: stored.agent, queue: stored.queue }, { stored: true });
  assertClaimMatches(stored, claimed, ctx.actor);
}

/**
 * Refuses a request whose agent or queue is not the task's. The task's own names are given only to a caller
 * that may act for every agent (a person, the system, an unlimited token): a limited token learns only that
 * the id is taken, not whose it is.
 */
export function assertClaimMatches(stored: TaskAgent, claimed: ClaimedAgent, actor?: Actor): void {
  const agentDiffers = claimed.agent != null && claimed.agent !== stored.agent;
  const queueDiffers = claimed.queue != null && claimed.queue !== stored.queue;
  if (!agentDiffers && !queueDiffers) return;
  const named = agentDiffers ? `agent "${claimed.agent}"` : `queue "${claimed.queue}"`;
  if (hasTokenLimits(actor))
    throw new TaskAgentMismatchError(
      `Task "${stored.taskId}" is not ${named}'s: a task keeps the agent and queue it was first seen with`,
    );
  throw new TaskAgentMismatchError(
    `Task "${stored.taskId}" belongs to agent "${stored.agent}" on queue "${stored.queue}", not ${named}: a task keeps the agent and queue it was first seen with`,
  );
}

/**
 * Stores who a task belongs to if nothing has yet (the caller was judged by authorizeTaskAgent against the names
 * it gives), and answers who it belongs to now: the names given, or those of a request that stored the task
 * first meanwhile, which the caller then judges the request against again. For the paths that are not the step
 * engine's hot path (dead letters sent by an agent); the others write the row inside their own statements.
 */
export async function registerTask(
  db: Executor,
  task: TaskAgent,
  through: TaskFirstPath,
): Promise<{ task: TaskAgent; registered: boolean }> {
  const [made] = await db
    .insert(taskAgents)
    .values({ taskId: task.taskId, agent: task.agent, queue: task.queue, firstSeenThrough: through })
    .onConflictDoNothing({ target: taskAgents.taskId })
    .returning({ taskId: taskAgents.taskId, agent: taskAgents.agent, queue: taskAgents.queue });
  if (made) return { task: made, registered: true };
  const stored = await readTaskAgent(db, task.taskId);
  if (!stored) throw new Error(`registerTask: task "${task.taskId}" conflicted but has no row`);
  return { task: stored, registered: false };
}

/**
 * The task `agent` means by `taskId`, and who it is stored for: the id itself when it is free or the agent's
 * own, else the agent's alias of it (task-alias.ts). `known` is the id's stored agent when the caller has read
 * it already (a batch's); a request naming another agent's alias is refused.
 */
export async function resolveTaskOf(
  db: Executor,
  agent: string,
  taskId: string,
  known?: Map<string, TaskAgent>,
): Promise<{ taskId: string; stored: TaskAgent | undefined }> {
  refuseForeignAlias(taskId, agent);
  const stored = known ? known.get(taskId) : await readTaskAgent(db, taskId);
  const storedId = storedTaskIdFor(agent, taskId, stored?.agent);
  if (storedId === taskId) return { taskId, stored };
  return { taskId: storedId, stored: await readTaskAgent(db, storedId) };
}

/**
 * The task a request that names a task but no agent means (finishing a task, a raw key's task, a hold on a
 * task): for a token limited to agents, the id when it is stored for one of them, else the first of their
 * aliases of it that exists; for any other caller, the id as given.
 */
export async function resolveTaskForActor(ctx: CoreContext, taskId: string): Promise<string> {
  const agents = hasTokenLimits(ctx.actor) ? ctx.actor.allowedAgents : undefined;
  if (!agents) return taskId;
  const stored = await readTaskAgent(ctx.db, taskId);
  if (!stored || agents.includes(stored.agent)) return taskId;
  const aliases = agents.map((agent) => aliasOf(agent, taskId));
  const storedAliases = await readTaskAgents(ctx.db, aliases);
  return aliases.find((alias) => storedAliases.has(alias)) ?? taskId;
}
