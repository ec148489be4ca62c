import type { ModelRequest } from '@openai/agents-core';
import { contentHash } from '../content-key';

/**
 * What names a model call: everything the model is asked, and nothing about how this process asks it.
 * The abort signal, the tracing switch and the runner's internal flags differ from run to run of the
 * same task; the retry settings hold functions. Left in, they would give a redelivered run new keys.
 */
export function requestContentOf(request: ModelRequest, model: string | undefined) {
  const { retry: _retry, ...modelSettings } = request.modelSettings ?? {};
  return {
    model: model ?? null,
    systemInstructions: request.systemInstructions,
    input: request.input,
    previousResponseId: request.previousResponseId,
    conversationId: request.conversationId,
    modelSettings,
    tools: request.tools,
    outputType: request.outputType,
    handoffs: request.handoffs,
    prompt: request.prompt,
    overridePromptModel: request.overridePromptModel,
  };
}

/** The SHA-256 of a model request's content, the same in every process for the same request. */
export const requestHashOf = (request: ModelRequest, model: string | undefined): Promise<string> =>
  contentHash(requestContentOf(request, model));

/**
 * The request as the wrapped model gets it, with the provider's own HTTP retries off. The OpenAI models
 * of the Agents SDK send `maxRetries: 0` to the OpenAI client when the runner marks a request as managed
 * by someone else (`_internal.runnerManagedRetry`); the runner marks only its own second tries, and here
 * every try is Holdfast's. The mark is set on the runner's per-try object (not a copy), because the
 * runner finds a failed try's token usage by that object's identity.
 */
export function withProviderRetriesOff(request: ModelRequest): ModelRequest {
  const carrier = request as ModelRequest & { _internal?: Record<string, unknown> };
  const internal = Object.assign(carrier._internal ?? {}, { runnerManagedRetry: true });
  return { ...request, _internal: internal } as ModelRequest;
}
