import type { Transaction } from '../../db/client';
import { InvalidInputError } from '@holdfast/protocol/errors';
import type { BeginStepRequest } from '@holdfast/protocol/steps/step-protocol';
import { readTaskBudget } from '../budgets/task-budget';
import { defaultOwnerOf } from '../holds/known-owner';
import type { CoreContext } from '../kernel/context';
import { authorizeTaskAgent } from '../tasks/task-agent';
import { aliasAgentOf } from '../tasks/task-alias';
import { taskOnBegin, type TaskNames } from './new-task';
import { stepActor } from './step-actor';

/** A new task's id was stored for another agent after the begin's reads: the begin goes to this agent's alias. */
export class TaskIdTakenMeanwhile extends Error {}

/**
 * Whether the caller may begin a step of this task, by the one rule for tasks (task-agent.ts), before anything
 * is written: an existing task is judged by its stored agent and queue, a new one by the request's names (it is
 * stored with them), its parent by the parent's.
 */
export async function authorizeBegin(ctx: CoreContext, request: BeginStepRequest, stored: TaskNames | undefined) {
  const claimed = { taskId: request.taskId, agent: request.agent, queue: request.queue };
  if (!stored) {
    stepActor(ctx, request.agent, request.queue ?? request.agent);
    if (request.parentTaskId !== undefined) await authorizeParent(ctx, request.taskId, request.parentTaskId);
  }
  await authorizeTaskAgent(ctx, stored && { taskId: request.taskId, ...stored }, claimed);
}

/**
 * A new task may name as its parent only a task Holdfast has seen, of an agent the caller may act for (by the
 * parent's stored agent and queue): a token limited to one agent cannot hang tasks under another agent's.
 */
async function authorizeParent(ctx: CoreContext, taskId: string, parentTaskId: string): Promise<void> {
  if (parentTaskId === taskId) {
    throw new InvalidInputError('A task cannot be its own parent', { parentTaskId: ['must be another task'] });
  }
  const parent = await readTaskBudget(ctx.db, parentTaskId);
  if (!parent) {
    throw new InvalidInputError(`No task ${parentTaskId} has begun a step`, {
      parentTaskId: ['must be a task that has begun a step'],
    });
  }
  stepActor(ctx, parent.agent, parent.queue);
}

/**
 * A new task's row, made in the begin's transaction. Two first begins naming different agents race on the
 * insert: the loser waits for the winner to commit, and is judged against the winner's row.
 */
export async function taskMadeInBegin(
  ctx: CoreContext,
  tx: Transaction,
  request: BeginStepRequest & { queue: string },
  /** The queue the request named, if it named one: a queue left out is not compared. */
  claimedQueue: string | undefined,
  now: Date,
): Promise<TaskNames> {
  const { task, made } = await taskOnBegin(tx, request, now, defaultOwnerOf(ctx));
  if (!made && task.agent !== request.agent && aliasAgentOf(request.taskId) === undefined)
    throw new TaskIdTakenMeanwhile();
  const claimed = { taskId: request.taskId, agent: request.agent, queue: claimedQueue };
  // A task made here may have taken the queue a span or an attempt report stored it with: judged like any other.
  if (!made || task.queue !== request.queue)
    await authorizeTaskAgent(ctx, { taskId: request.taskId, ...task }, claimed);
  return task;
}

/**
 * The task as a begin leaves it: the stored row, the one the claim's transaction made (once committed), or else
 * made when first asked. A begin that ends without committing its task (a gate's wait, a refusal) still leaves
 * its task seen, as every begin does.
 */
export function taskSeenBy(
  ctx: CoreContext,
  request: BeginStepRequest & { queue: string },
  stored: TaskNames | undefined,
  now: Date,
) {
  let task = stored;
  return {
    seen: async () => (task ??= (await taskOnBegin(ctx.db, request, now, defaultOwnerOf(ctx))).task),
    remember: (made: TaskNames | undefined) => {
      task ??= made;
    },
  };
}
