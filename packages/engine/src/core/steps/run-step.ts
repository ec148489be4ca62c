import type { CoreContext } from '../kernel/context';
import { InvalidInputError } from '@holdfast/protocol/errors';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../retry/decide-retry';
import { classifyFailure, type ClassifiedFailure } from '@holdfast/protocol/steps/step-error';
import { beginStep } from './begin-step';
import { finishStep } from './finish-step';
import {
  outcomeOfBegin,
  outcomeOfFinish,
  type RunStepOutcome,
  type StepAttempt,
  type StepBody,
} from '@holdfast/protocol/steps/step-outcome';
import type { BeginStepInput, FinishStepInput } from '@holdfast/protocol/steps/step-protocol';

export type { RunStepOutcome, StepAttempt, StepBody } from '@holdfast/protocol/steps/step-outcome';

export type RunStepInput = BeginStepInput;

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
  if (begun.decision !== 'run') return outcomeOfBegin(begun);

  const attempt: StepAttempt = { key: begun.key, attemptNumber: begun.attemptNumber, fencingToken: begun.fencingToken };
  const finishFailed = (
    failure: Pick<ClassifiedFailure, 'errorClass' | 'errorText' | 'retryAfterMs'> &
      Pick<FinishStepInput, 'costMicros' | 'usage' | 'model' | 'provider'>,
  ) =>
    finishStep(
      ctx,
      {
        key: attempt.key,
        fencingToken: attempt.fencingToken,
        attemptNumber: attempt.attemptNumber,
        outcome: 'failed',
        ...failure,
      },
      policy,
    );

  let output: Awaited<ReturnType<StepBody<T>>>;
  try {
    output = await body(attempt);
    if (!isValidCost(output.costMicros)) {
      // A step reporting a nonsense cost is a bug in the step: a person should look.
      throw new Error(
        `the step reported an invalid cost ${String(output.costMicros)}: costs are whole micro-dollars, 0 or more`,
      );
    }
  } catch (error) {
    return outcomeOfFinish(await finishFailed(classifyFailure(error)), undefined as T);
  }
  try {
    const finished = await finishStep(
      ctx,
      {
        key: attempt.key,
        fencingToken: attempt.fencingToken,
        attemptNumber: attempt.attemptNumber,
        outcome: 'succeeded',
        result: output.result ?? null,
        costMicros: output.costMicros,
        usage: output.usage,
        model: output.model,
        provider: output.provider,
      },
      policy,
    );
    return outcomeOfFinish(finished, output.result);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    // A result that cannot be stored (too large) cannot be replayed: the step is wrong, not unlucky.
    return outcomeOfFinish(
      await finishFailed({
        errorClass: 'permanent',
        errorText: `the step's result was refused: ${error.message}`,
        costMicros: output.costMicros,
        usage: output.usage,
        model: output.model,
        provider: output.provider,
      }),
      undefined as T,
    );
  }
}

function isValidCost(cost: unknown): boolean {
  return cost === undefined || (Number.isSafeInteger(cost) && (cost as number) >= 0);
}
