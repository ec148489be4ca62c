import type { Tool, ToolExecutionOptions } from 'ai';
import type { BeginStepInput } from '@holdfast/protocol/steps/step-protocol';
import { runStepToEnd, StepError } from '../step-loop';
import type { HoldfastTask, StepCounter } from './task-binding';

export interface HoldfastToolOptions {
  /**
   * Whether the tool's downstream deduplicates by itself (a payment API taking an idempotency key). When it
   * does not (the default), a call interrupted between sending and recording is never repeated: it is held
   * as an uncertain outcome for a person to check.
   */
  downstreamIdempotent?: boolean;
  /** What one call is expected to cost, reserved against the task's ceiling. */
  estimatedCostMicros?: number;
}

/**
 * Wraps a side-effecting tool so each call runs once per task, whatever the
 * redeliveries: a step named after the tool, its calls numbered in order, its
 * input (and the model's call id, itself replayed with the model's stored
 * answer) guarding the key; a repeat gets the stored output, not a second
 * side effect. The tool's error becomes a failed attempt: throw a StepError to
 * say its class (anything else is `unknown`, not retried).
 */
export function holdfastTool<T extends Tool>(
  binding: HoldfastTask,
  counter: StepCounter,
  step: string,
  tool: T,
  options: HoldfastToolOptions = {},
): T {
  const execute = tool.execute;
  if (!execute) return tool; // a tool the client runs: nothing here to guard
  const guarded = async (input: unknown, callOptions: ToolExecutionOptions<unknown>) => {
    const begin: BeginStepInput = {
      ...binding.task,
      step,
      iteration: counter.next(step),
      content: { toolCallId: callOptions.toolCallId, input: input ?? null },
      downstreamIdempotent: options.downstreamIdempotent ?? false,
      inProgressTtlMs: binding.inProgressTtlMs,
      estimatedCostMicros: options.estimatedCostMicros,
    };
    return runStepToEnd(
      binding.client,
      begin,
      async () => {
        const output = await (execute as (input: unknown, options: ToolExecutionOptions<unknown>) => unknown)(
          input,
          callOptions,
        );
        if (isAsyncIterable(output))
          throw new StepError('permanent', `tool ${step} streams its output; a streamed output cannot be stored`);
        return { result: (await output) ?? null };
      },
      { ...binding.loop, signal: callOptions.abortSignal ?? binding.loop?.signal },
    );
  };
  return { ...tool, execute: guarded } as T;
}

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  value !== null && typeof value === 'object' && Symbol.asyncIterator in value;
