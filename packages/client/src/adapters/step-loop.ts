import type { HoldfastClient } from '../client-types';
import { runStep } from '../run-step';
import type { BeginStepInput } from '@holdfast/protocol/steps/step-protocol';
import type { StepBody } from '@holdfast/protocol/steps/step-outcome';
import type { ErrorClass } from '@holdfast/protocol/enums';
import { StepError } from '@holdfast/protocol/steps/step-error';
import type { BudgetInfo } from '@holdfast/protocol/inputs/spend-budget-input';

/**
 * What every framework adapter shares: run one step through the step protocol
 * until Holdfast says it is done. The framework's own retries are switched off
 * (each adapter's page says how); here Holdfast's answer decides: a retry after
 * its delay, a wait after its Retry-After, a stop raised as a typed error the
 * caller (or a model reading a tool error) can act on.
 */

/** Raised when Holdfast says stop: beginning again will not help, a person or a redrive must act. */
export class HoldfastStepStopped extends Error {
  constructor(
    readonly code: string,
    readonly reason: string,
    readonly detail: string,
    readonly holdId?: number,
    readonly deadLetterId?: number,
    /** The fleet spend budget that stopped the step (reason budget_exhausted), when one did. */
    readonly budget?: BudgetInfo,
  ) {
    super(`do not retry: ${detail} (${code}, ${reason})`);
    this.name = 'HoldfastStepStopped';
  }

  /** The error for Holdfast's stop answer, naming the hold and dead letter it opened, and the budget, if any. */
  static from(stop: {
    code: string;
    reason: string;
    detail: string;
    holdId?: number;
    deadLetterId?: number;
    budget?: BudgetInfo;
  }) {
    return new HoldfastStepStopped(stop.code, stop.reason, stop.detail, stop.holdId, stop.deadLetterId, stop.budget);
  }
}

/** Raised when Holdfast asked for a wait longer than the caller allows (`maxWaitMs`). */
export class HoldfastStepWaiting extends Error {
  constructor(
    readonly code: string,
    readonly retryAfterMs: number,
    readonly detail: string,
    /** The fleet spend budget behind a BUDGET_EXHAUSTED wait. */
    readonly budget?: BudgetInfo,
  ) {
    super(`try again in ${Math.ceil(retryAfterMs / 1000)} s: ${detail} (${code})`);
    this.name = 'HoldfastStepWaiting';
  }
}

/** Waits `ms`, or rejects when the signal aborts. Replaceable, so tests never sleep. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

export interface StepLoopOptions {
  /** How the loop waits between tries (default: a timer). */
  sleep?: Sleep;
  /** The longest single wait accepted (a retry's delay or a Retry-After); longer raises HoldfastStepWaiting. Default 5 minutes. */
  maxWaitMs?: number;
  signal?: AbortSignal;
}

const DEFAULT_MAX_WAIT_MS = 5 * 60_000;

/**
 * Runs the step until it completes or is replayed, and returns its result; throws
 * HoldfastStepStopped on a stop and HoldfastStepWaiting on a wait too long to sit out.
 */
export async function runStepToEnd<T>(
  client: HoldfastClient,
  input: BeginStepInput,
  body: StepBody<T>,
  options: StepLoopOptions = {},
): Promise<T> {
  const sleep = options.sleep ?? realSleep;
  const maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  for (;;) {
    const outcome = await runStep(client, input, body);
    switch (outcome.status) {
      case 'completed':
      case 'replayed':
        return outcome.result;
      case 'stop':
        throw HoldfastStepStopped.from(outcome);
      case 'retry':
      case 'wait': {
        const waitMs = outcome.status === 'retry' ? outcome.delayMs : outcome.retryAfterMs;
        if (waitMs > maxWaitMs) {
          const code = outcome.status === 'wait' ? outcome.code : 'RETRY_DELAYED';
          const detail =
            outcome.status === 'wait' ? outcome.detail : `attempt ${outcome.attemptNumber + 1} is due later`;
          throw new HoldfastStepWaiting(code, waitMs, detail, outcome.status === 'wait' ? outcome.budget : undefined);
        }
        await sleep(waitMs, options.signal);
      }
    }
  }
}

/**
 * The error class of an HTTP status, as the traces receiver's default rules class them:
 * 429 rate limited, 408 and 5xx transient, other 4xx permanent.
 */
export function errorClassOfStatus(status: number | undefined): ErrorClass {
  if (status === undefined) return 'unknown';
  if (status === 429) return 'rate_limited';
  if (status === 408 || status >= 500) return 'transient';
  if (status >= 400) return 'permanent';
  return 'unknown';
}

/** A Retry-After header's value (seconds or an HTTP date) in milliseconds, if it can be read. */
export function retryAfterMsOf(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** A StepError for a failed HTTP call: its class from the status, the server's Retry-After kept. */
export function stepErrorOfHttpFailure(
  status: number | undefined,
  message: string,
  retryAfter?: string | null,
): StepError {
  return new StepError(errorClassOfStatus(status), message, { retryAfterMs: retryAfterMsOf(retryAfter) });
}

export { StepError };
