import type { ErrorClass } from '../enums';
import type { ModelUsageReport } from '../inputs/model-usage-input';
import type { BeginAnswer, FinishAnswer, StopAnswer, WaitAnswer } from './step-protocol';

/** The attempt a step body runs as: its key, its number and the fencing token that guards its writes. */
export interface StepAttempt {
  key: string;
  attemptNumber: number;
  fencingToken: number;
}

/**
 * What the step does. Its result is stored and replayed to every duplicate, so a model is never called twice for
 * one step. Its cost: `costMicros` as stated, or the model call's `usage` and `model` for Holdfast to price.
 */
export type StepBody<T> = (
  attempt: StepAttempt,
) => Promise<{ result: T; costMicros?: number } & Pick<ModelUsageReport, 'usage' | 'model' | 'provider'>>;

/** What a worker does next after running a step: the same outcomes in-process and over HTTP. */
export type RunStepOutcome<T> =
  | { status: 'completed'; result: T; attemptNumber: number; taskStatus: 'active' | 'completed' }
  | { status: 'replayed'; result: T }
  | { status: 'wait'; code: WaitAnswer['code']; retryAfterMs: number; detail: string; budget?: WaitAnswer['budget'] }
  | { status: 'retry'; delayMs: number; attemptNumber: number; errorClass: ErrorClass }
  | ({ status: 'stop' } & Omit<StopAnswer, 'decision'>);

/** The outcome of a begin that did not say `run`. */
export function outcomeOfBegin<T>(answer: Exclude<BeginAnswer, { decision: 'run' }>): RunStepOutcome<T> {
  switch (answer.decision) {
    case 'replay':
      return { status: 'replayed', result: answer.result as T };
    case 'wait':
      return {
        status: 'wait',
        code: answer.code,
        retryAfterMs: answer.retryAfterMs,
        detail: answer.detail,
        ...(answer.budget ? { budget: answer.budget } : {}),
      };
    case 'stop': {
      const { decision: _decision, ...stop } = answer;
      return { status: 'stop', ...stop };
    }
  }
}

/** The outcome of a finish; `result` is what the body returned (a completed step's result). */
export function outcomeOfFinish<T>(answer: FinishAnswer, result: T): RunStepOutcome<T> {
  switch (answer.decision) {
    case 'completed':
      return { status: 'completed', result, attemptNumber: answer.attemptNumber, taskStatus: answer.taskStatus };
    case 'retry':
      return {
        status: 'retry',
        delayMs: answer.delayMs,
        attemptNumber: answer.attemptNumber,
        errorClass: answer.errorClass,
      };
    case 'stop': {
      const { decision: _decision, ...stop } = answer;
      return { status: 'stop', ...stop };
    }
  }
}
