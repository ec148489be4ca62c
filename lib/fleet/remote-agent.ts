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
export const remoteSteps = ['plan', 'summarize'] as const;

export async function runRemoteStep(context: AgentContext & { client: HoldfastClient }, task: FleetTask, step: (typeof remoteSteps)[number]): Promise<StepVerdict> {
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
    const { text, costMicros } = callModel(context.seed, task.taskId, step, claim.attemptNumber, `Research step ${step}`);
    await client.recordAttempt({ ...report, finishedAt: new Date().toISOString(), outcome: 'succeeded', costMicros }, { idempotencyKey: `attempt:${key}:${claim.attemptNumber}` });
    await client.completeKey({ key, fencingToken: claim.fencingToken, result: { text } });
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
