import type { CoreContext } from './context';
import { InvalidInputError } from './errors';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry/decide-retry';
import { classifyFailure, type ClassifiedFailure } from './retry/step-error';
import { beginStep } from './steps/begin-step';
import { finishStep } from './steps/finish-step';
import type { BeginStepInput, FinishAnswer, StopAnswer, WaitAnswer } from './steps/step-protocol';

export type RunStepInput = BeginStepInput;

export interface StepAttempt {
  key: string;
  attemptNumber: number;
  fencingToken: number;
}

/** What the step does. Its result is stored and replayed to every duplicate, so a model is never called twice for one step. */
export type StepBody<T> = (attempt: StepAttempt) => Promise<{ result: T; costMicros?: number }>;

export type RunStepOutcome<T> =
  | { status: 'completed'; result: T; attemptNumber: number; taskStatus: 'active' | 'completed' }
  | { status: 'replayed'; result: T }
  | { status: 'wait'; code: WaitAnswer['code']; retryAfterMs: number; detail: string }
  | { status: 'retry'; delayMs: number; attemptNumber: number; errorClass: ClassifiedFailure['errorClass'] }
  | ({ status: 'stop' } & Omit<StopAnswer, 'decision'>);

/**
 * One step of a task, made safe to deliver more than once: begin it with the
 * step engine (which claims its key and gates it on the task's allowance,
 * spend, deadline and the fleet's retry pools), run the body only when told
 * to, and finish it with its outcome and cost (which settles the key and
 * decides between retry and stop). The HTTP API and the clients run the same
 * begin and finish, so every agent gets the same answers.
 */
export async function runStep<T>(
  ctx: CoreContext,
  input: RunStepInput,
  body: StepBody<T>,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
): Promise<RunStepOutcome<T>> {
  const begun = await beginStep(ctx, input);
  switch (begun.decision) {
    case 'replay':
      return { status: 'replayed', result: begun.result as T };
    case 'wait':
      return { status: 'wait', code: begun.code, retryAfterMs: begun.retryAfterMs, detail: begun.detail };
    case 'stop': {
      const { decision: _decision, ...stop } = begun;
      return { status: 'stop', ...stop };
    }
    case 'run':
      break;
  }

  const attempt: StepAttempt = { key: begun.key, attemptNumber: begun.attemptNumber, fencingToken: begun.fencingToken };
  const finishFailed = (failure: Pick<ClassifiedFailure, 'errorClass' | 'errorText' | 'costMicros' | 'retryAfterMs'>) =>
    finishStep(ctx, { key: attempt.key, fencingToken: attempt.fencingToken, attemptNumber: attempt.attemptNumber, outcome: 'failed', ...failure }, policy);

  let output: { result: T; costMicros?: number };
  try {
    output = await body(attempt);
    if (!isValidCost(output.costMicros)) {
      // A step reporting a nonsense cost is a bug in the step: a person should look.
      throw new Error(`the step reported an invalid cost ${String(output.costMicros)}: costs are whole micro-dollars, 0 or more`);
    }
  } catch (error) {
    return outcomeOf(await finishFailed(classifyFailure(error)), undefined as T);
  }
  try {
    const finished = await finishStep(ctx, { key: attempt.key, fencingToken: attempt.fencingToken, attemptNumber: attempt.attemptNumber, outcome: 'succeeded', result: output.result ?? null, costMicros: output.costMicros ?? 0 }, policy);
    return outcomeOf(finished, output.result);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    // A result that cannot be stored (too large) cannot be replayed: the step is wrong, not unlucky.
    return outcomeOf(await finishFailed({ errorClass: 'permanent', errorText: `the step's result was refused: ${error.message}`, costMicros: output.costMicros ?? 0 }), undefined as T);
  }
}

function outcomeOf<T>(finished: FinishAnswer, result: T): RunStepOutcome<T> {
  switch (finished.decision) {
    case 'completed':
      return { status: 'completed', result, attemptNumber: finished.attemptNumber, taskStatus: finished.taskStatus };
    case 'retry':
      return { status: 'retry', delayMs: finished.delayMs, attemptNumber: finished.attemptNumber, errorClass: finished.errorClass };
    case 'stop': {
      const { decision: _decision, ...stop } = finished;
      return { status: 'stop', ...stop };
    }
  }
}

function isValidCost(cost: unknown): boolean {
  return cost === undefined || (Number.isSafeInteger(cost) && (cost as number) >= 0);
}
