import type {
  Model,
  ModelProvider,
  ModelRequest,
  ModelResponse,
  ModelRetryAdvice,
  StreamEvent,
} from '@openai/agents-core';
import { type BeginStepInput, runStep } from '../..';
import {
  HoldfastStepStopped,
  HoldfastStepWaiting,
  realSleep,
  runStepToEnd,
  type StepError,
  type StepLoopOptions,
} from '../step-loop';
import { iterationOfHash } from '../content-key';
import { EventQueue } from './event-queue';
import type { HoldfastConnection, HoldfastTask } from './holdfast-task';
import { stepErrorOfModelFailure } from './model-failure';
import { declaredModel } from '../declared-model';
import { requestHashOf, withProviderRetriesOff } from './model-request-key';
import {
  responseOfStored,
  type StoredModelResponse,
  storedOfResponse,
  storedOfResponseDone,
  streamOfStored,
  usageReportOf,
} from './stored-response';

export interface HoldfastModelOptions extends HoldfastConnection {
  /** The task the calls belong to, or a function that names it when a call begins. */
  task: HoldfastTask | (() => HoldfastTask);
  /** The step's name on the dashboard (default `model`). */
  step?: string;
  /**
   * `request` (the default): each distinct request is its own key, `<task>/<step>#<n>` with `n` from the
   * request's hash, since the runner asks the model again every turn. `step`: one call per task
   * (`<task>/<step>`); a redelivery that asks something else is a KEY_PAYLOAD_MISMATCH hold.
   */
  keyBy?: 'request' | 'step';
  /** The model's name as the price table has it (e.g. gpt-4o-mini): Holdfast prices each call's tokens. */
  model?: string;
  /** The provider as the price table names it (default `openai`). */
  provider?: string;
  /** What a call is expected to cost, reserved against the task's spend ceiling until it finishes. */
  estimatedCostMicros?: number;
  /** After this long a silent call is presumed dead and a redelivery may take over (default 60 s). */
  inProgressTtlMs?: number;
  /** Your own reading of a failure; return undefined to leave it to the adapter's (HTTP status first). */
  classifyError?: (error: unknown) => StepError | undefined;
}

/**
 * Wraps an Agents SDK model so that each call is an attempt of a Holdfast step: begun (and gated by the
 * task's allowance, spend ceiling and deadline) before the model is asked, finished with its tokens for
 * Holdfast to price, its response stored and handed back to every duplicate without asking the model
 * again. Failures are retried when Holdfast says so, after the delay it names; a stop is raised as
 * HoldfastStepStopped, whose message a person or a model can read ("do not retry: ...").
 */
export function holdfastModel(model: Model, options: HoldfastModelOptions): Model {
  return new HoldfastModel(model, options);
}

/**
 * The same for every model a provider hands out: the runner asks the provider for the model each agent
 * names, and that name is the one Holdfast prices by (unless `model` says otherwise).
 */
export function holdfastModelProvider(provider: ModelProvider, options: HoldfastModelOptions): ModelProvider {
  return {
    async getModel(name?: string) {
      return holdfastModel(await provider.getModel(name), { ...options, model: options.model ?? name });
    },
  };
}

class HoldfastModel implements Model {
  constructor(
    private readonly inner: Model,
    private readonly options: HoldfastModelOptions,
  ) {}

  get supportsPromptModelSelection() {
    return this.inner.supportsPromptModelSelection;
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const stored = await runStepToEnd<StoredModelResponse>(
      this.options.client,
      await this.beginInput(request),
      async () => {
        let response: ModelResponse;
        try {
          response = await this.inner.getResponse(withProviderRetriesOff(request));
        } catch (error) {
          throw this.failure(error, request.signal);
        }
        const result = storedOfResponse(response);
        return { result, ...this.spend(result) };
      },
      this.loopOptions(request.signal),
    );
    return responseOfStored(stored);
  }

  /**
   * A streamed call, recorded when its stream ends: the events pass through as they come, and the
   * attempt is finished (succeeded, with the closing response stored) only once `response_done` has
   * arrived. A stream that breaks off is a failed attempt of its error's class. Holdfast's retry of it is
   * taken in-process only while nothing has been passed on yet; after that the reader has half an answer,
   * so the error is raised instead and the next run (a redelivery) begins the next attempt.
   */
  async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    const input = await this.beginInput(request);
    const { sleep, maxWaitMs, signal } = this.loopOptions(request.signal);
    for (;;) {
      const events = new EventQueue<StreamEvent>();
      let failure: StepError | undefined;
      const running = runStep<StoredModelResponse>(this.options.client, input, async () => {
        let done: Extract<StreamEvent, { type: 'response_done' }>['response'] | undefined;
        try {
          for await (const event of this.inner.getStreamedResponse(withProviderRetriesOff(request))) {
            events.push(event);
            if (event.type === 'response_done') done = event.response;
          }
        } catch (error) {
          failure = this.failure(error, request.signal);
          throw failure;
        }
        if (!done) {
          failure = this.failure(new Error('the stream ended without its closing response_done event'));
          throw failure;
        }
        const result = storedOfResponseDone(done);
        return { result, ...this.spend(result) };
      }).finally(() => events.close());
      // A reader that stops early never awaits the step; its end (recorded all the same) must not be an
      // unhandled rejection. Awaited below, the step still raises what it raises.
      running.catch(() => undefined);

      let passedOn = false;
      for await (const event of events) {
        passedOn = true;
        yield event;
      }
      const outcome = await running;
      switch (outcome.status) {
        case 'completed':
          return;
        case 'replayed':
          yield* streamOfStored(outcome.result);
          return;
        case 'stop':
          throw HoldfastStepStopped.from(outcome);
        case 'retry':
          if (passedOn) throw failure ?? new Error(`attempt ${outcome.attemptNumber} of a streamed call failed`);
          if (outcome.delayMs > maxWaitMs) {
            throw new HoldfastStepWaiting(
              'RETRY_DELAYED',
              outcome.delayMs,
              `attempt ${outcome.attemptNumber + 1} is due later`,
            );
          }
          await sleep(outcome.delayMs, signal);
          break;
        case 'wait':
          if (outcome.retryAfterMs > maxWaitMs) {
            throw new HoldfastStepWaiting(outcome.code, outcome.retryAfterMs, outcome.detail, outcome.budget);
          }
          await sleep(outcome.retryAfterMs, signal);
      }
    }
  }

  /**
   * Holdfast has already retried whatever it allowed by the time an error leaves this model, so the
   * runner is told not to try again on its own (its retries are off unless `modelSettings.retry` is set).
   */
  getRetryAdvice(): ModelRetryAdvice {
    return { suggested: false, replaySafety: 'unsafe', reason: 'Holdfast decides the retries of this call' };
  }

  private async beginInput(request: ModelRequest): Promise<BeginStepInput> {
    const task = typeof this.options.task === 'function' ? this.options.task() : this.options.task;
    const hash = await requestHashOf(request, this.options.model);
    return {
      ...task,
      step: this.options.step ?? 'model',
      ...(this.options.keyBy === 'step' ? {} : { iteration: iterationOfHash(hash) }),
      // The request's hash, not the request: a conversation can outgrow the 256 KiB a step's content may
      // have, and the guard needs only to tell one request from another.
      content: { model: this.options.model ?? null, requestSha256: hash },
      estimatedCostMicros: this.options.estimatedCostMicros,
      inProgressTtlMs: this.options.inProgressTtlMs,
      ...declaredModel(this.options.model),
    };
  }

  /** The call's tokens and model for Holdfast to price; without a model name there is nothing to price. */
  private spend(stored: StoredModelResponse) {
    if (!this.options.model) return {};
    return { usage: usageReportOf(stored), model: this.options.model, provider: this.options.provider ?? 'openai' };
  }

  private failure(error: unknown, signal?: AbortSignal): StepError {
    return this.options.classifyError?.(error) ?? stepErrorOfModelFailure(error, signal);
  }

  private loopOptions(signal: AbortSignal | undefined): Required<Pick<StepLoopOptions, 'sleep' | 'maxWaitMs'>> & {
    signal?: AbortSignal;
  } {
    return { sleep: this.options.sleep ?? realSleep, maxWaitMs: this.options.maxWaitMs ?? 5 * 60_000, signal };
  }
}
