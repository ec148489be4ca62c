import {
  type FunctionTool,
  type RunContext,
  type ToolInputParameters,
  type ToolOptions,
  type ToolOutputSchema,
  tool,
  type UnknownContext,
} from '@openai/agents-core';
import type { StepAttempt } from '../..';
import { HoldfastStepStopped, HoldfastStepWaiting, runStepToEnd, type StepError } from '../step-loop';
import { contentHash, iterationOfHash } from '../content-key';
import type { HoldfastConnection, HoldfastTask } from './holdfast-task';
import { stepNameOf } from '../step-name';

type ToolCallDetails = Parameters<FunctionTool['invoke']>[2];

export interface HoldfastToolOptions<Context = UnknownContext> extends HoldfastConnection {
  /** The task a call belongs to: fixed, or read from the run's context (the usual way: one task per run). */
  task: HoldfastTask | ((runContext: RunContext<Context>) => HoldfastTask);
  /** The Agents SDK agent the tool is given to: part of the step's name, so two agents' calls stay apart. */
  agentName?: string;
  /** The step's name (default `<agentName>.<tool name>`, or the tool's name alone). */
  step?: string;
  /**
   * `arguments` (the default): a call is named by its arguments, so the same call in a re-run of the
   * agent (whatever id the model gave it) is the same key and is not done twice; the same arguments twice
   * in one task are one side effect. `call`: the model's call id is part of the name too, for a tool that
   * may rightly be called twice with the same arguments (a re-run then repeats it unless its model turn
   * is replayed, which keeps the call id).
   */
  keyBy?: 'arguments' | 'call';
  /** False for a downstream that cannot deduplicate: an interrupted call is then held, never repeated. */
  downstreamIdempotent?: boolean;
  inProgressTtlMs?: number;
  estimatedCostMicros?: number;
  /**
   * How a failure is classed. By default a StepError thrown by `execute` keeps its class and anything
   * else is `unknown`, which Holdfast never retries: a side effect is retried only when you say it is safe.
   */
  classifyError?: (error: unknown) => StepError | undefined;
  /**
   * What a Holdfast stop (or a wait too long to sit out) does: `raise` (the default) ends the run with
   * HoldfastStepStopped / HoldfastStepWaiting; `tell_model` hands its message ("do not retry: ...") to
   * the model as the tool's output.
   */
  onStop?: 'raise' | 'tell_model';
}

const attempts = new WeakMap<object, StepAttempt>();

/**
 * The Holdfast attempt a tool call runs as, from the `details` its `execute` gets: `key` is the
 * idempotency key to hand to a downstream that takes one, so it deduplicates by Holdfast's key.
 */
export function holdfastAttemptOf(details: ToolCallDetails | undefined): StepAttempt | undefined {
  return details ? attempts.get(details) : undefined;
}

/**
 * `tool(...)` with every call run as a Holdfast step. Its key is derived from the task, the agent, the
 * tool and the call's arguments, so a re-run of the agent for the same task (a redelivered message)
 * gets the stored output of a call already done instead of doing its side effect again.
 */
export function holdfastTool<
  TParameters extends ToolInputParameters = undefined,
  Context = UnknownContext,
  Result = string,
  TOutputSchema extends ToolOutputSchema | undefined = undefined,
>(
  toolOptions: ToolOptions<TParameters, Context, TOutputSchema>,
  options: HoldfastToolOptions<Context>,
): ReturnType<typeof tool<TParameters, Context, Result, TOutputSchema>> {
  const execute = toolOptions.execute as (
    input: unknown,
    runContext?: RunContext<Context>,
    details?: ToolCallDetails,
  ) => unknown;
  const userErrorFunction = toolOptions.errorFunction as
    | ((runContext: RunContext<Context>, error: unknown, details?: ToolCallDetails) => unknown)
    | null
    | undefined;
  let toolName = '';
  // The SDK turns a failing `execute` into text for the model. What leaves the step protocol (a stop, a
  // wait too long, the API refusing the call) must not become that text unless asked for: the task is
  // dead-lettered and a person has a hold, or the adapter is misconfigured. Failures before `execute`
  // (arguments that do not parse) keep the SDK's handling.
  const afterTheProtocol = new WeakSet<object>();

  const runAsStep = async (input: unknown, runContext?: RunContext<Context>, details?: ToolCallDetails) => {
    if (!runContext && typeof options.task === 'function') {
      throw new Error(`the tool ${toolName} was called without a run context to read its Holdfast task from`);
    }
    const task = typeof options.task === 'function' ? options.task(runContext!) : options.task;
    const callId = options.keyBy === 'call' ? details?.toolCall?.callId : undefined;
    const content = { tool: toolName, arguments: input ?? null, ...(callId ? { callId } : {}) };
    return runStepToEnd<unknown>(
      options.client,
      {
        ...task,
        step: options.step ?? stepNameOf(options.agentName, toolName),
        iteration: iterationOfHash(await contentHash(content)),
        content,
        downstreamIdempotent: options.downstreamIdempotent,
        inProgressTtlMs: options.inProgressTtlMs,
        estimatedCostMicros: options.estimatedCostMicros,
      },
      async (attempt) => {
        const forCall = { ...details };
        attempts.set(forCall, attempt);
        try {
          return { result: (await execute(input, runContext, forCall)) ?? null };
        } catch (error) {
          throw options.classifyError?.(error) ?? error;
        }
      },
      { sleep: options.sleep, maxWaitMs: options.maxWaitMs, signal: details?.signal },
    );
  };

  const guarded = async (input: unknown, runContext?: RunContext<Context>, details?: ToolCallDetails) => {
    try {
      return await runAsStep(input, runContext, details);
    } catch (error) {
      if (typeof error === 'object' && error !== null) afterTheProtocol.add(error);
      throw error;
    }
  };

  const errorFunction =
    userErrorFunction === null || (userErrorFunction === undefined && toolOptions.outputSchema !== undefined)
      ? userErrorFunction
      : (runContext: RunContext<Context>, error: unknown, details?: ToolCallDetails) => {
          if (typeof error === 'object' && error !== null && afterTheProtocol.has(error)) {
            const stop = error instanceof HoldfastStepStopped || error instanceof HoldfastStepWaiting;
            if (stop && options.onStop === 'tell_model') return error.message;
            throw error;
          }
          return userErrorFunction
            ? userErrorFunction(runContext, error, details)
            : `The tool ${toolName} failed and did not run to its end.`;
        };

  const created = tool<TParameters, Context, Result, TOutputSchema>({
    ...toolOptions,
    execute: guarded,
    errorFunction,
  } as ToolOptions<TParameters, Context, TOutputSchema>);
  toolName = created.name;
  return created;
}
