import { createHash } from 'node:crypto';
import { ForbiddenError } from '@holdfast/protocol/errors';

/**
 * Task ids are the agents' own, one namespace per agent (ADR 0008). A task is stored under the id its agent
 * gives it, unless another agent's task has that id already: it is then stored under its alias, `~<agent>/<id>`,
 * and every later request of that agent naming the id is taken to the alias. So no agent can take an id from
 * another by using it first, and every task stored before namespacing keeps its id and its keys.
 *
 * The alias form is reserved: a task id beginning `~<agent>/` names that agent's own task, and only requests
 * for that agent may name it, so an alias cannot be taken first either. The rest of the id is kept readable; a
 * long one keeps its start and a hash of the whole, within the 200 characters a task id may have.
 */
const ALIAS = /^~([A-Za-z0-9][A-Za-z0-9_.:-]*)\//;
const MAX_TASK_ID_LENGTH = 200;

export function aliasOf(agent: string, taskId: string): string {
  const alias = `~${agent}/${taskId}`;
  if (alias.length <= MAX_TASK_ID_LENGTH) return alias;
  const fingerprint = `~${createHash('sha256').update(taskId).digest('hex').slice(0, 12)}`;
  const room = MAX_TASK_ID_LENGTH - agent.length - 2 - fingerprint.length;
  return `~${agent}/${taskId.slice(0, Math.max(room, 0))}${fingerprint}`;
}

/** The agent an aliased task id names, or undefined for an id an agent chose itself. */
export function aliasAgentOf(taskId: string): string | undefined {
  return ALIAS.exec(taskId)?.[1];
}

/**
 * The id `agent`'s task named `taskId` is stored under, given the agent the id is stored for (undefined: no
 * task has it yet): the id itself when it is free or the agent's own (an alias always is), else its alias.
 */
export function storedTaskIdFor(agent: string, taskId: string, storedFor: string | undefined): string {
  if (storedFor === undefined || storedFor === agent || aliasAgentOf(taskId) !== undefined) return taskId;
  return aliasOf(agent, taskId);
}

/**
 * Refuses a request for `agent` naming another agent's alias: `~payments/order-7` is payments' task, and no
 * request for research may begin it (or make it first).
 */
export function refuseForeignAlias(taskId: string, agent: string | null | undefined): void {
  const problem = foreignAliasProblem(taskId, agent);
  if (problem) throw new ForbiddenError(problem);
}

/** Why a request for `agent` may not name this task id (another agent's alias), or undefined. */
export function foreignAliasProblem(taskId: string, agent: string | null | undefined): string | undefined {
  const named = aliasAgentOf(taskId);
  if (named === undefined || agent == null || named === agent) return undefined;
  return `Task ids beginning "~${named}/" are agent ${named}'s own: a request for agent ${agent} may not name one`;
}
