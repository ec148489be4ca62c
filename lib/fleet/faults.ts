import { StepError } from '@holdfast/protocol/steps/step-error';
import { chance, pick } from './chance';

/** What can go wrong with one attempt of one step. */
export type Fault = 'none' | 'transient' | 'rate_limited' | 'invalid_output' | 'permanent' | 'crash_after_act' | 'slow';

export interface FleetTiming {
  /** pg-boss's visibility timeout: a job whose handler runs longer is delivered again. */
  visibilityTimeoutSeconds: number;
  /** How long a claimed key stays in progress before another claim may take it over. */
  keyTtlMs: number;
  /** Delay before pg-boss delivers a failed job again. */
  retryDelaySeconds: number;
}

export const DEMO_TIMING: FleetTiming = { visibilityTimeoutSeconds: 10, keyTtlMs: 15_000, retryDelaySeconds: 3 };

/**
 * The fault injected into an attempt, decided by the seed alone. Model steps
 * may also return malformed output; steps with a side effect may crash after
 * acting. Later attempts fail less, so most tasks get through eventually.
 */
export function faultFor(
  seed: number,
  taskId: string,
  step: string,
  attemptNumber: number,
  kind: 'model' | 'effect',
): Fault {
  const calm = attemptNumber > 1 ? 2 : 1;
  return pick<Fault>(chance(seed, 'fault', taskId, step, attemptNumber), [
    ['none', 70 * calm],
    ['transient', 8],
    ['rate_limited', 5],
    ['invalid_output', kind === 'model' ? 6 : 0],
    ['permanent', 2],
    ['crash_after_act', kind === 'effect' ? 6 : 0],
    ['slow', 4],
  ]);
}

/** Waits, or gives up early when the fleet is stopping (so a stop is not held up by a simulated hang). */
export function sleep(ms: number, stopping?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (stopping?.aborted) return reject(new Error('the fleet is stopping'));
    const onStop = () => {
      clearTimeout(timer);
      reject(new Error('the fleet is stopping'));
    };
    const timer = setTimeout(() => {
      stopping?.removeEventListener('abort', onStop); // the fleet runs for days: no listener may pile up
      resolve();
    }, ms);
    stopping?.addEventListener('abort', onStop, { once: true });
  });
}

/**
 * Throws the error a fault stands for when the downstream refuses the call before doing any work: a 503, a 429,
 * a 400. A refused call bills nothing, so the failure reports no cost.
 */
export function failBeforeActing(fault: Fault): void {
  switch (fault) {
    case 'transient':
      throw new StepError('transient', '503 Service Unavailable from the downstream');
    case 'rate_limited':
      throw new StepError('rate_limited', '429 Too Many Requests', { retryAfterMs: 1_000 });
    case 'permanent':
      throw new StepError('permanent', '400 Bad Request: the recipient address is invalid');
    default:
  }
}

/**
 * Throws the invalid-output failure after the model answered: the call did its work and consumed its tokens, so
 * the failure reports what it cost, as a provider bills it.
 */
export function failOnOutput(fault: Fault, costMicros: number): void {
  if (fault === 'invalid_output')
    throw new StepError('invalid_output', 'model output is not valid JSON: unexpected token at 187', { costMicros });
}

/**
 * After acting: a worker that "crashes" stops answering (longer than its job's
 * visibility and its key's time to live, so both are given up on), then dies.
 * A slow one outlives its visibility timeout and then finishes normally.
 */
export async function afterActing(fault: Fault, timing: FleetTiming, stopping?: AbortSignal): Promise<void> {
  if (fault === 'crash_after_act') {
    await sleep(timing.keyTtlMs + timing.visibilityTimeoutSeconds * 1_000, stopping);
    throw new Error('worker process died after acting, before reporting back');
  }
  if (fault === 'slow') await sleep(timing.visibilityTimeoutSeconds * 1_000 + 500, stopping);
}
