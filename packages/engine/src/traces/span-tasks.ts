import type { Executor } from '../db/client';
import { readTaskAgents } from '../core/tasks/task-agent';
import { aliasAgentOf, foreignAliasProblem, storedTaskIdFor } from '../core/tasks/task-alias';
import type { SpanAttempt } from './span-to-attempt';

/**
 * Each call's task as its agent means it, as on every other path (task-alias.ts): an id another agent's task
 * has is this agent's alias of it, read for the whole batch at once. A call naming another agent's alias is
 * rejected. Two agents' first calls of one new id in the same batch are not told apart here: the first is
 * stored, and the other rejected by storeSpans as another agent's (its exporter's next batch finds the alias).
 */
export async function callsInTheirAgentsTasks(
  db: Executor,
  calls: readonly SpanAttempt[],
): Promise<{ calls: SpanAttempt[]; rejected: { spanId: string; reason: string }[] }> {
  const rejected: { spanId: string; reason: string }[] = [];
  const chosen = calls.filter((call) => aliasAgentOf(call.taskId) === undefined).map((call) => call.taskId);
  const stored = chosen.length === 0 ? new Map() : await readTaskAgents(db, chosen);
  const placed: SpanAttempt[] = [];
  for (const call of calls) {
    const problem = foreignAliasProblem(call.taskId, call.agent);
    if (problem) {
      rejected.push({ spanId: call.spanId, reason: problem });
      continue;
    }
    const taskId = storedTaskIdFor(call.agent, call.taskId, stored.get(call.taskId)?.agent);
    placed.push(taskId === call.taskId ? call : { ...call, taskId });
  }
  return { calls: placed, rejected };
}
