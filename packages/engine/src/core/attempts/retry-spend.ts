/**
 * Retry-attributable spend: what an execution (a task's pass of a step) spent beyond what one try would have
 * cost. One try costs what the succeeded attempt cost when the execution succeeded, else what its first attempt
 * cost. So a call that succeeded after two free refusals (429, then 500) has no retry spend: retrying cost
 * nothing. Four examples, the docs' and the tests':
 *
 *   429 ($0), 500 ($0), success ($0.0027)          retry spend $0
 *   invalid output ($0.003), success ($0.003)      $0.003
 *   timeout after a long generation ($0.010), success ($0.002)   $0.010
 *   three transient failures ($0.001 each), exhausted            $0.002
 *
 * Stored per attempt (attempts.retry_cost_micros) as each attempt ends, so the figure sums like cost across
 * buckets and only grows: retryShareOf. The database keeps the same rule (the attempts_retry_cost trigger,
 * packages/engine/drizzle/0048; spans in packages/engine/src/traces/store-spans.ts).
 */

export interface EndedTry {
  outcome: 'succeeded' | 'failed' | 'running';
  costMicros: number;
}

/** An execution's retry-attributable spend, from its attempts in order (attempt 1 first). */
export function retrySpendOf(tries: readonly EndedTry[]): number {
  if (tries.length === 0) return 0;
  const total = tries.reduce((sum, attempt) => sum + attempt.costMicros, 0);
  const succeeded = tries.find((attempt) => attempt.outcome === 'succeeded');
  return total - (succeeded ?? tries[0]!).costMicros;
}

/**
 * What one attempt adds to its execution's retry spend when it ends, attempts arriving in order: a failed retry
 * adds its own cost, a succeeded retry adds the first attempt's (wasted, since the retry did the work), a first
 * attempt adds nothing. The shares of an execution's attempts add up to retrySpendOf while at most one succeeds.
 */
export function retryShareOf(attemptNumber: number, attempt: EndedTry, firstAttemptCostMicros: number): number {
  if (attemptNumber === 1) return 0;
  if (attempt.outcome === 'failed') return attempt.costMicros;
  if (attempt.outcome === 'succeeded') return firstAttemptCostMicros;
  return 0;
}
