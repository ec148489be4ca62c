import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamResult } from '@ai-sdk/provider';
import type { LanguageModelMiddleware } from 'ai';
import { runStep } from '../../run-step';
import type { BeginStepInput } from '@holdfast/protocol/steps/step-protocol';
import { declaredModel } from '../declared-model';
import { HoldfastStepStopped, HoldfastStepWaiting, realSleep, runStepToEnd } from '../step-loop';
import { stepErrorOfModelCall } from './call-errors';
import { callContent } from './call-content';
import {
  replayGeneration,
  replayStream,
  type StoredGeneration,
  type StoredStream,
  storeGeneration,
  usageReport,
} from './stored-call';
import { recordedStream } from './recorded-stream';
import type { HoldfastTask, StepCounter } from './task-binding';

/**
 * A language-model middleware (for `wrapLanguageModel`) that makes every model
 * call an attempt of a Holdfast step: begun before the provider is called,
 * finished with its outcome and token usage (which Holdfast prices), replayed
 * from the stored result when a redelivered task asks again. Retries are
 * Holdfast's to decide: set the SDK's `maxRetries: 0`, or a failed call is
 * tried again inside one attempt, unseen and outside the task's allowance.
 */
export interface HoldfastModelOptions {
  /**
   * What one call is expected to cost, reserved against the task's spend ceiling until it finishes.
   * Absent, Holdfast estimates it from the step's recent calls.
   */
  estimatedCostMicros?: number;
}

export function holdfastModelMiddleware(
  binding: HoldfastTask,
  counter: StepCounter,
  step: string,
  options: HoldfastModelOptions = {},
): LanguageModelMiddleware {
  const loop = binding.loop ?? {};

  const beginInput = async (params: LanguageModelV4CallOptions, model: LanguageModelV4): Promise<BeginStepInput> => ({
    ...binding.task,
    step,
    iteration: counter.next(step),
    content: await callContent(params, model),
    // Asking a model again repeats no side effect: an interrupted call may be taken over.
    downstreamIdempotent: true,
    inProgressTtlMs: binding.inProgressTtlMs,
    estimatedCostMicros: options.estimatedCostMicros,
    ...declaredModel(model.modelId),
  });

  return {
    wrapGenerate: async ({ doGenerate, params, model }) => {
      const input = await beginInput(params, model);
      let live: Awaited<ReturnType<typeof doGenerate>> | undefined;
      const stored = await runStepToEnd<StoredGeneration>(
        binding.client,
        input,
        async () => {
          live = undefined;
          try {
            live = await doGenerate();
          } catch (error) {
            throw stepErrorOfModelCall(error);
          }
          return {
            result: storeGeneration(live),
            ...usageReport(live.usage, live.response?.modelId ?? model.modelId, model.provider),
          };
        },
        { ...loop, signal: params.abortSignal ?? loop.signal },
      );
      // The call made now is returned whole (its request and response details too); a replay is rebuilt.
      return live ?? replayGeneration(stored);
    },

    wrapStream: async ({ doStream, params, model }) => {
      const input = await beginInput(params, model);
      const sleep = loop.sleep ?? realSleep;
      const maxWaitMs = loop.maxWaitMs ?? 5 * 60_000;
      const signal = params.abortSignal ?? loop.signal;
      for (;;) {
        // The body hands the live stream out as soon as the provider answers, then waits for it to end.
        let handOut!: (result: LanguageModelV4StreamResult) => void;
        const handedOut = new Promise<LanguageModelV4StreamResult>((resolve) => {
          handOut = resolve;
        });
        const outcome = runStep<StoredStream>(binding.client, input, async () => {
          let started: LanguageModelV4StreamResult;
          try {
            started = await doStream();
          } catch (error) {
            throw stepErrorOfModelCall(error);
          }
          const recording = recordedStream(started.stream);
          handOut({ ...started, stream: recording.stream });
          const ended = await recording.ended;
          return {
            result: { kind: 'stream', parts: ended.parts },
            ...usageReport(ended.usage, ended.modelId ?? model.modelId, model.provider),
          };
        });
        const first = await Promise.race([handedOut, outcome]);
        if ('stream' in first) {
          // Recorded when it ends; a failure to record is the attempt's, not the reader's.
          outcome.catch(() => {});
          return first;
        }
        switch (first.status) {
          case 'replayed':
          case 'completed':
            return { stream: replayStream(first.result) };
          case 'stop':
            throw HoldfastStepStopped.from(first);
          case 'retry':
          case 'wait': {
            const waitMs = first.status === 'retry' ? first.delayMs : first.retryAfterMs;
            if (waitMs > maxWaitMs)
              throw new HoldfastStepWaiting(
                first.status === 'wait' ? first.code : 'RETRY_DELAYED',
                waitMs,
                step,
                first.status === 'wait' ? first.budget : undefined,
              );
            await sleep(waitMs, signal);
          }
        }
      }
    },
  };
}
