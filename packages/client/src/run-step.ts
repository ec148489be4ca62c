import {
  outcomeOfBegin,
  outcomeOfFinish,
  type RunStepOutcome,
  type StepBody,
} from '@holdfast/protocol/steps/step-outcome';
import { classifyFailure } from '@holdfast/protocol/steps/step-error';
import {
  stopCodes,
  waitCodes,
  type BeginStepInput,
  type FinishAnswer,
  type StopCode,
  type StopReason,
  type WaitCode,
} from '@holdfast/protocol/steps/step-protocol';
import { budgetInfo, type BudgetInfo } from '@holdfast/protocol/inputs/spend-budget-input';
import { HoldfastApiError } from './api-error';
import type { HoldfastClient } from './client-types';

/**
 * runStep over HTTP, with the same semantics as the in-process one: begin
 * the step, run the body only when told to, finish it with its outcome and
 * cost, and return the same outcomes (completed, replayed, wait, retry,
 * stop). The caller schedules a `retry` after its delay and a `wait` after
 * retryAfterMs, and stops on `stop`; it never decides on its own to retry.
 */
export async function runStep<T>(
  client: HoldfastClient,
  input: BeginStepInput,
  body: StepBody<T>,
): Promise<RunStepOutcome<T>> {
  let begun: Awaited<ReturnType<HoldfastClient['beginStep']>>;
  try {
    begun = await client.beginStep(input);
  } catch (error) {
    return answerInProblem(error);
  }
  if (begun.decision !== 'run') return outcomeOfBegin(begun);

  const attempt = { key: begun.key, attemptNumber: begun.attemptNumber, fencingToken: begun.fencingToken };
  const finish = async (report: Parameters<HoldfastClient['finishStep']>[0]): Promise<FinishAnswer> =>
    client.finishStep(report) as Promise<FinishAnswer>;
  let output: Awaited<ReturnType<StepBody<T>>>;
  // The cost as the body gave it: a stated cost, or the call's tokens and model for Holdfast to price.
  const spendOf = () => ({
    costMicros: output.costMicros,
    usage: output.usage,
    model: output.model,
    provider: output.provider,
  });
  try {
    output = await body(attempt);
  } catch (error) {
    const failure = classifyFailure(error);
    try {
      const answer = await finish({
        ...attempt,
        outcome: 'failed',
        errorClass: failure.errorClass,
        errorText: failure.errorText,
        costMicros: failure.costMicros,
        retryAfterMs: failure.retryAfterMs,
      });
      return outcomeOfFinish(answer, undefined as T);
    } catch (finishError) {
      return answerInProblem(finishError);
    }
  }
  try {
    const answer = await finish({
      ...attempt,
      outcome: 'succeeded',
      result: output.result ?? null,
      ...spendOf(),
    });
    return outcomeOfFinish(answer, output.result);
  } catch (error) {
    if (!(error instanceof HoldfastApiError) || !RESULT_REFUSED.includes(error.code)) return answerInProblem(error);
    // A result that cannot be stored (too large, not JSON) cannot be replayed: the step is wrong, not unlucky.
    try {
      const answer = await finish({
        ...attempt,
        outcome: 'failed',
        errorClass: 'permanent',
        errorText: `the step's result was refused: ${error.detail}`,
        ...spendOf(),
      });
      return outcomeOfFinish(answer, undefined as T);
    } catch (finishError) {
      return answerInProblem(finishError);
    }
  }
}

/** Codes with which a finish refuses the result itself. */
const RESULT_REFUSED = ['INVALID_INPUT', 'PAYLOAD_TOO_LARGE'];

/** A wait or stop answer travels as a problem document; anything else is a real error and is thrown. */
function answerInProblem<T>(error: unknown): RunStepOutcome<T> {
  if (!(error instanceof HoldfastApiError)) throw error;
  const problem = error.problem;
  if ((waitCodes as readonly string[]).includes(error.code)) {
    const retryAfterMs =
      typeof problem.retryAfterMs === 'number' ? problem.retryAfterMs : (error.retryAfterSeconds ?? 1) * 1_000;
    return { status: 'wait', code: error.code as WaitCode, retryAfterMs, detail: error.detail, ...budgetIn(problem) };
  }
  if ((stopCodes as readonly string[]).includes(error.code) && typeof problem.reason === 'string') {
    return {
      status: 'stop',
      code: error.code as StopCode,
      reason: problem.reason as StopReason,
      detail: error.detail,
      holdId: typeof problem.holdId === 'number' ? problem.holdId : undefined,
      deadLetterId: typeof problem.deadLetterId === 'number' ? problem.deadLetterId : undefined,
      ...budgetIn(problem),
    };
  }
  throw error;
}

/** The fleet spend budget a BUDGET_EXHAUSTED wait or a budget_exhausted stop names, when it names a well-formed one. */
function budgetIn(problem: Record<string, unknown>): { budget?: BudgetInfo } {
  const parsed = budgetInfo.safeParse(problem.budget);
  return parsed.success ? { budget: parsed.data } : {};
}
