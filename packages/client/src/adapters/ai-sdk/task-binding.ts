import type { HoldfastClient } from '../../client-types';
import type { BeginStepInput } from '@holdfast/protocol/steps/step-protocol';
import type { StepLoopOptions } from '../step-loop';

/**
 * The task a handler is working on, as the AI SDK adapter needs it: made once
 * per delivery of a task, and shared by the wrapped model and the wrapped
 * tools. It numbers each step's calls (iteration 0, 1, 2...) in the order the
 * handler makes them: a redelivery that makes the same calls in the same order
 * meets the same keys, and so the stored results.
 */
export interface HoldfastTask {
  client: HoldfastClient;
  /** The task's stable id, agent, and (optionally) owner, queue and budget, as beginStep takes them. */
  task: Omit<
    BeginStepInput,
    'step' | 'iteration' | 'content' | 'final' | 'downstreamIdempotent' | 'estimatedCostMicros' | 'inProgressTtlMs'
  >;
  /** How long a silent call is presumed alive (the step protocol's inProgressTtlMs; default 60 s). */
  inProgressTtlMs?: number;
  /** Waits between tries and their bound (tests pass a sleep that records instead of waiting). */
  loop?: StepLoopOptions;
}

export interface StepCounter {
  /** The next iteration of this step in this delivery of the task. */
  next: (step: string) => number;
}

export function stepCounter(): StepCounter {
  const counts = new Map<string, number>();
  return {
    next: (step) => {
      const iteration = counts.get(step) ?? 0;
      counts.set(step, iteration + 1);
      return iteration;
    },
  };
}
