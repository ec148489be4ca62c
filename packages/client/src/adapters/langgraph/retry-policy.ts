import type { RetryPolicy } from '@langchain/langgraph';

/**
 * Thrown by a wrapped node or task when Holdfast has granted a retry (or asked for a wait) and its
 * delay has been sat out: the one error holdfastRetryPolicy lets LangGraph retry.
 */
export class HoldfastRetryDue extends Error {
  constructor(
    readonly attemptNumber: number | undefined,
    readonly delayMs: number,
    detail: string,
  ) {
    super(detail);
    this.name = 'HoldfastRetryDue';
  }
}

/**
 * LangGraph's retry loop, with every decision in it Holdfast's. LangGraph's `retryOn` is synchronous and
 * its delay is its own (exponential, with up to a second of random jitter, on a timer nobody can
 * replace), so neither can ask Holdfast. The wrapped node does instead: it reports the failure, hears
 * retry or stop, sleeps the delay Holdfast named, and only then throws HoldfastRetryDue. This policy
 * retries that error alone, at once (no interval, no jitter), with no attempt limit of its own: the
 * task's allowance, spend ceiling and deadline bound the retries. Everything else, a Holdfast stop among
 * them, fails the node the first time.
 */
export const holdfastRetryPolicy: RetryPolicy = {
  retryOn: (error: unknown) => error instanceof HoldfastRetryDue,
  initialInterval: 0,
  backoffFactor: 1,
  maxInterval: 0,
  jitter: false,
  maxAttempts: Number.MAX_SAFE_INTEGER,
  logWarning: false,
};
