import type { LanguageModelV4StreamPart, LanguageModelV4Usage } from '@ai-sdk/provider';
import { StepError } from '../step-loop';
import { stepErrorOfModelCall } from './call-errors';
import { storeStreamPart } from './stored-call';

export interface EndedStream {
  parts: unknown[];
  usage?: LanguageModelV4Usage;
  modelId?: string;
}

/**
 * Passes a model's stream to its reader part by part, keeping a copy, and says
 * how it ended. A stream read to its end with no error part is a succeeded
 * call, stored for replay. One that ends otherwise is a failed attempt, never
 * an uncertain one (a model call changes nothing outside): an error part or a
 * broken connection fails with the error's class, and a reader that stops
 * reading (cancels) fails as `transient` — the tokens were spent, and asking
 * again may be worth it within the task's allowance.
 */
export function recordedStream(source: ReadableStream<LanguageModelV4StreamPart>): {
  stream: ReadableStream<LanguageModelV4StreamPart>;
  ended: Promise<EndedStream>;
} {
  const reader = source.getReader();
  const parts: unknown[] = [];
  let usage: LanguageModelV4Usage | undefined;
  let modelId: string | undefined;
  let errorPart: unknown;
  let settle!: { resolve: (ended: EndedStream) => void; reject: (error: StepError) => void };
  const ended = new Promise<EndedStream>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // Nobody may be waiting when a stream fails (the attempt's finish reads it later): no unhandled rejection.
  ended.catch(() => {});

  const stream = new ReadableStream<LanguageModelV4StreamPart>({
    async pull(controller) {
      let next: ReadableStreamReadResult<LanguageModelV4StreamPart>;
      try {
        next = await reader.read();
      } catch (error) {
        settle.reject(stepErrorOfModelCall(error));
        controller.error(error);
        return;
      }
      if (next.done) {
        if (errorPart !== undefined) settle.reject(stepErrorOfModelCall(errorPart));
        else settle.resolve({ parts, usage, modelId });
        controller.close();
        return;
      }
      const part = next.value;
      if (part.type === 'error' && errorPart === undefined) errorPart = part.error;
      if (part.type === 'finish') usage = part.usage;
      if (part.type === 'response-metadata' && part.modelId) modelId = part.modelId;
      const kept = storeStreamPart(part);
      if (kept !== undefined) parts.push(kept);
      controller.enqueue(part);
    },
    async cancel(reason) {
      settle.reject(
        new StepError(
          'transient',
          `the stream was cancelled by its reader after ${parts.length} parts: ${String(reason)}`,
        ),
      );
      await reader.cancel(reason);
    },
  });
  return { stream, ended };
}
