import { isGraphBubbleUp } from '@langchain/langgraph';
import { type BeginStepInput, runStep, type StepBody } from '../..';
import { HoldfastStepStopped, HoldfastStepWaiting, realSleep, StepError } from '../step-loop';
import type { HoldfastConnection } from './task-source';
import { HoldfastRetryDue } from './retry-policy';

const DEFAULT_MAX_WAIT_MS = 5 * 60_000;

/**
 * One attempt through the step protocol, for LangGraph's retry loop to repeat (step-loop's
 * runStepToEnd repeats inside itself, which would leave LangGraph's loop nothing to do). Completed or
 * replayed: the result. Retry or wait: Holdfast's delay is slept here, then HoldfastRetryDue asks
 * LangGraph (under holdfastRetryPolicy) to run the node again at once. Stop: HoldfastStepStopped.
 */
export async function runOneAttempt<T>(
  connection: HoldfastConnection,
  input: BeginStepInput,
  body: StepBody<T>,
  signal?: AbortSignal,
): Promise<{ result: T; replayed: boolean }> {
  // LangGraph's own control flow (interrupt(), a Command to the parent graph) travels as thrown errors.
  // Inside the body one ends the attempt unfinished: it is recorded as a transient failure (the work did
  // not finish, and resuming may do it), and the original error is thrown on so that LangGraph pauses or
  // routes as asked. Its retry is begun when LangGraph runs the node again.
  let bubbled: unknown;
  const outcome = await runStep(connection.client, input, async (attempt) => {
    try {
      return await body(attempt);
    } catch (error) {
      if (!isGraphBubbleUp(error)) throw connection.classifyError?.(error) ?? error;
      bubbled = error;
      throw new StepError('transient', `LangGraph stopped the step before it finished (${error.name})`);
    }
  });
  if (bubbled) throw bubbled;
  const sleep = connection.sleep ?? realSleep;
  const maxWaitMs = connection.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  switch (outcome.status) {
    case 'completed':
      return { result: outcome.result, replayed: false };
    case 'replayed':
      return { result: outcome.result, replayed: true };
    case 'stop':
      throw HoldfastStepStopped.from(outcome);
    case 'retry': {
      const detail = `attempt ${outcome.attemptNumber} failed (${outcome.errorClass}); Holdfast granted attempt ${outcome.attemptNumber + 1}`;
      if (outcome.delayMs > maxWaitMs) throw new HoldfastStepWaiting('RETRY_DELAYED', outcome.delayMs, detail);
      await sleep(outcome.delayMs, signal);
      throw new HoldfastRetryDue(outcome.attemptNumber + 1, outcome.delayMs, detail);
    }
    case 'wait':
      if (outcome.retryAfterMs > maxWaitMs) {
        throw new HoldfastStepWaiting(outcome.code, outcome.retryAfterMs, outcome.detail, outcome.budget);
      }
      await sleep(outcome.retryAfterMs, signal);
      throw new HoldfastRetryDue(undefined, outcome.retryAfterMs, `${outcome.code}: ${outcome.detail}`);
  }
}
