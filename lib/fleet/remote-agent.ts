import { HoldfastApiError, type HoldfastClient } from '../client';
import { hashContent } from '../core/keys/derive-key';
import { classifyFailure } from '../core/retry/step-error';
import type { AgentContext, FleetTask, StepVerdict } from './agents';
import { failBeforeActing, faultFor } from './faults';
import { callModel } from './model';

/** The remote agent gives a step this many attempts before dead-lettering its task. */
const MAX_ATTEMPTS = 4;

/**
 * The research agent works through the HTTP API only, as an agent written in
 * another language would: claim the step's key, act, report the attempt,
 * complete or fail the key, and dead-letter the task when attempts run out.
 * It proves the API carries the same guarantees as the library.
 */
export type RemoteStep = 'plan' | 'dispatch' | 'summarize';

/** A research task plans, then dispatches two sub-agents; each sub-agent summarizes one part. */
export function remoteStepsOf(task: FleetTask): RemoteStep[] {
  return task.parentTaskId ? ['summarize'] : ['plan', 'dispatch'];
}

/** The sub-agents' tasks: their ids derive from the parent's, so dispatching twice asks for the same work. */
export function subAgentTasks(task: FleetTask): FleetTask[] {
  return [1, 2].map((part) => ({ taskId: `${task.taskId}.part-${part}`, agent: task.agent, parentTaskId: task.taskId }));
}

export interface RemoteContext extends AgentContext {
  client: HoldfastClient;
  /** Puts sub-agent tasks on the queue. */
  dispatch: (tasks: FleetTask[]) => Promise<void>;
}

export async function runRemoteStep(context: RemoteContext, task: FleetTask, step: RemoteStep): Promise<StepVerdict> {
  const { client } = context;
  const key = `${task.taskId}/${step}`;
  const content = { taskId: task.taskId, agent: task.agent, step };
  let claim;
  try {
    claim = await client.claimKey({ key, requestHash: hashContent(content), inProgressTtlMs: context.timing.keyTtlMs, taskId: task.taskId, step });
  } catch (error) {
    if (error instanceof HoldfastApiError && error.retryable) return 'later';
    throw error;
  }
  if (claim.outcome === 'replay') {
    context.tally.replays += 1;
    return 'next';
  }

  const startedAt = new Date();
  context.tally.attempts += 1;
  const report = { taskId: task.taskId, agent: task.agent, step, attemptNumber: claim.attemptNumber, startedAt: startedAt.toISOString(), idempotencyKey: key };
  try {
    failBeforeActing(faultFor(context.seed, task.taskId, step, claim.attemptNumber, 'model'));
    let result: unknown;
    let costMicros = 0;
    if (step === 'dispatch') {
      // Guarded by this step's key, and the sub-tasks' ids are derived: a repeat dispatch asks for the same work.
      const subTasks = subAgentTasks(task);
      await context.dispatch(subTasks);
      result = { dispatched: subTasks.map((sub) => sub.taskId) };
    } else {
      const call = callModel(context.seed, task.taskId, step, claim.attemptNumber, `Research step ${step}`);
      result = { text: call.text };
      costMicros = call.costMicros;
    }
    await client.recordAttempt({ ...report, finishedAt: new Date().toISOString(), outcome: 'succeeded', costMicros }, { idempotencyKey: `attempt:${key}:${claim.attemptNumber}` });
    await client.completeKey({ key, fencingToken: claim.fencingToken, result });
    return 'next';
  } catch (error) {
    if (error instanceof HoldfastApiError) throw error; // the API itself refused: not a step failure
    const failure = classifyFailure(error);
    await client.recordAttempt(
      { ...report, finishedAt: new Date().toISOString(), outcome: 'failed', errorClass: failure.errorClass, errorText: failure.errorText, costMicros: 0 },
      { idempotencyKey: `attempt:${key}:${claim.attemptNumber}` },
    );
    await client.failKey({ key, fencingToken: claim.fencingToken, errorClass: failure.errorClass, errorText: failure.errorText });
    if (failure.errorClass !== 'permanent' && claim.attemptNumber < MAX_ATTEMPTS) return 'later';
    const { deadLetter, hold } = await client.deadLetter({
      taskId: task.taskId, agent: task.agent, step, queue: task.agent, payload: content,
      reason: failure.errorClass === 'permanent' ? 'permanent_error' : 'retry_ceiling', errorClass: failure.errorClass,
      lastError: failure.errorText, attempts: claim.attemptNumber, spendMicros: 0, owner: 'team:platform',
    });
    context.tally.deadLetterIds.add(deadLetter.id);
    context.tally.holdIds.add(hold.id);
    return 'stop';
  }
}
