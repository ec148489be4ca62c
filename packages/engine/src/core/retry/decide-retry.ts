import type { ErrorClass } from '../../db/schema';

export interface RetryPolicy {
  /** First backoff ceiling; doubles with each retry. */
  baseDelayMs: number;
  /** No backoff ceiling grows past this. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseDelayMs: 500, maxDelayMs: 60_000 };

export interface FailureToDecide {
  errorClass: ErrorClass;
  /** The attempt that just failed: 1 for the primary attempt. */
  attemptNumber: number;
  /** Retries this step already made because of invalid output (the corrective retry). */
  invalidOutputRetries: number;
  /** A rate limiter's Retry-After, when it sent one. */
  retryAfterMs?: number;
}

export type RetryDecision =
  | { retry: true; delayMs: number }
  | { retry: false; reason: 'permanent' | 'unknown' | 'corrective_retry_used' };

/**
 * Whether a failed attempt may be retried, and after how long. Transient,
 * timeout and rate-limited failures retry with capped exponential backoff and
 * full jitter (a uniform delay between zero and the ceiling, so many workers
 * failing at once do not retry in step), never sooner than a Retry-After.
 * Invalid model output gets one corrective retry. Permanent and unknown errors
 * never retry: an unknown cause is not evidence that trying again helps.
 * Whether the task's budget allows the retry is decided separately.
 */
export function decideRetry(
  failure: FailureToDecide,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  random: () => number = Math.random,
): RetryDecision {
  switch (failure.errorClass) {
    case 'permanent':
      return { retry: false, reason: 'permanent' };
    case 'unknown':
      return { retry: false, reason: 'unknown' };
    case 'invalid_output':
      if (failure.invalidOutputRetries >= 1) return { retry: false, reason: 'corrective_retry_used' };
      return { retry: true, delayMs: 0 };
    case 'transient':
    case 'timeout':
    case 'rate_limited': {
      const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, failure.attemptNumber - 1));
      const jittered = Math.floor(random() * ceiling);
      return { retry: true, delayMs: Math.max(jittered, failure.retryAfterMs ?? 0) };
    }
  }
}
