import { type ModelResponse, type StreamEvent, Usage } from '@openai/agents-core';

/**
 * A model response as Holdfast stores it (plain JSON, at most 256 KiB) and as every duplicate gets it
 * back. One shape for plain and streamed calls, so a run that streams can replay a call first made
 * without streaming, and the other way round.
 */
export interface StoredModelResponse {
  output: ModelResponse['output'];
  usage: {
    requests?: number;
    inputTokens: number;
    outputTokens: number;
    totalTokens: number;
    inputTokensDetails?: Record<string, number>[];
    outputTokensDetails?: Record<string, number>[];
  };
  responseId?: string;
  requestId?: string;
  providerData?: Record<string, unknown>;
}

type ResponseDone = Extract<StreamEvent, { type: 'response_done' }>['response'];

export function storedOfResponse(response: ModelResponse): StoredModelResponse {
  return {
    output: response.output,
    usage: {
      requests: response.usage.requests,
      inputTokens: response.usage.inputTokens,
      outputTokens: response.usage.outputTokens,
      totalTokens: response.usage.totalTokens,
      inputTokensDetails: response.usage.inputTokensDetails,
      outputTokensDetails: response.usage.outputTokensDetails,
    },
    responseId: response.responseId,
    requestId: response.requestId,
    providerData: response.providerData,
  };
}

export function storedOfResponseDone(response: ResponseDone): StoredModelResponse {
  const usage = new Usage(response.usage);
  return storedOfResponse({
    output: response.output,
    usage,
    responseId: response.id,
    requestId: response.requestId,
    providerData: response.providerData,
  });
}

/** The stored response as the runner takes it: its usage a Usage again (the runner adds them up). */
export function responseOfStored(stored: StoredModelResponse): ModelResponse {
  return {
    output: stored.output,
    usage: new Usage(stored.usage),
    responseId: stored.responseId,
    requestId: stored.requestId,
    providerData: stored.providerData,
  };
}

/** A replayed call, streamed: the runner needs only the closing event, which carries the whole response. */
export function streamOfStored(stored: StoredModelResponse): StreamEvent[] {
  return [
    { type: 'response_started' },
    {
      type: 'response_done',
      response: {
        // The runner requires an id; a provider that gave none gets the step's own mark.
        id: stored.responseId ?? 'holdfast-replay',
        requestId: stored.requestId,
        usage: stored.usage,
        // A model's output, stored as the model gave it: the items a stream may close with.
        output: stored.output as ResponseDone['output'],
        providerData: stored.providerData,
      },
    },
  ];
}

/**
 * The tokens Holdfast prices the call by: input (cached parts included, as the price table expects),
 * output, and the cached input reads the provider reported per request (`cached_tokens`).
 */
export function usageReportOf(stored: StoredModelResponse) {
  const cached = (stored.usage.inputTokensDetails ?? []).reduce(
    (sum, details) => sum + (Number.isSafeInteger(details.cached_tokens) ? (details.cached_tokens ?? 0) : 0),
    0,
  );
  return {
    inputTokens: Math.max(0, Math.round(stored.usage.inputTokens)),
    outputTokens: Math.max(0, Math.round(stored.usage.outputTokens)),
    ...(cached > 0 ? { cacheReadInputTokens: cached } : {}),
  };
}
