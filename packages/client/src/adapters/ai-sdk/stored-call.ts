import type { LanguageModelV4GenerateResult, LanguageModelV4StreamPart, LanguageModelV4Usage } from '@ai-sdk/provider';
import type { ModelUsageReport } from '@holdfast/protocol/inputs/model-usage-input';
import { base64Of } from './call-content';

/**
 * What a model call leaves in Holdfast as its step's result, and how it is
 * given back on a replay. Only what the AI SDK reads to continue is kept (the
 * content, finish reason, usage, response id and model); request and response
 * bodies and headers are telemetry and stay out, so results stay small. Binary
 * file data travels as base64, and dates as ISO strings, as JSON requires.
 */

export interface StoredGeneration {
  kind: 'generate';
  content: LanguageModelV4GenerateResult['content'];
  finishReason: LanguageModelV4GenerateResult['finishReason'];
  usage: LanguageModelV4Usage;
  providerMetadata?: LanguageModelV4GenerateResult['providerMetadata'];
  response?: { id?: string; modelId?: string; timestamp?: string };
  warnings: LanguageModelV4GenerateResult['warnings'];
}

export interface StoredStream {
  kind: 'stream';
  parts: unknown[];
}

/** A file's bytes as base64, which the provider interface accepts in place of binary data. */
function withBase64Files<T>(part: T): T {
  const data = (part as { type?: string; data?: unknown }).data;
  if (data instanceof Uint8Array) return { ...part, data: base64Of(data) };
  return part;
}

export function storeGeneration(result: LanguageModelV4GenerateResult): StoredGeneration {
  const response = result.response;
  return {
    kind: 'generate',
    content: result.content.map(withBase64Files),
    finishReason: result.finishReason,
    usage: result.usage,
    providerMetadata: result.providerMetadata,
    response: response && {
      id: response.id,
      modelId: response.modelId,
      timestamp: response.timestamp?.toISOString(),
    },
    warnings: result.warnings,
  };
}

export function replayGeneration(stored: StoredGeneration): LanguageModelV4GenerateResult {
  return {
    content: stored.content,
    finishReason: stored.finishReason,
    usage: stored.usage,
    providerMetadata: stored.providerMetadata,
    response: stored.response && {
      id: stored.response.id,
      modelId: stored.response.modelId,
      timestamp: stored.response.timestamp ? new Date(stored.response.timestamp) : undefined,
    },
    warnings: stored.warnings,
  };
}

/** A stream part as it is kept: `raw` parts (the provider's own chunks) are dropped, a timestamp made a string. */
export function storeStreamPart(part: LanguageModelV4StreamPart): unknown | undefined {
  if (part.type === 'raw' || part.type === 'ping') return undefined;
  if (part.type === 'response-metadata') return { ...part, timestamp: part.timestamp?.toISOString() };
  return withBase64Files(part);
}

export function replayStream(stored: StoredStream): ReadableStream<LanguageModelV4StreamPart> {
  const parts = stored.parts.map((part) => {
    const typed = part as LanguageModelV4StreamPart & { timestamp?: string };
    if (typed.type === 'response-metadata' && typeof typed.timestamp === 'string')
      return { ...typed, timestamp: new Date(typed.timestamp) } as LanguageModelV4StreamPart;
    return typed as LanguageModelV4StreamPart;
  });
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

/**
 * The call's usage as Holdfast prices it: input tokens include the cached ones (the GenAI
 * conventions' reading, and the AI SDK's `total`); a count the provider did not give is left out.
 */
export function usageReport(
  usage: LanguageModelV4Usage | undefined,
  modelId: string,
  providerId: string,
): Pick<ModelUsageReport, 'usage' | 'model' | 'provider'> {
  const counts = {
    inputTokens: usage?.inputTokens.total,
    outputTokens: usage?.outputTokens.total,
    cacheReadInputTokens: usage?.inputTokens.cacheRead,
    cacheCreationInputTokens: usage?.inputTokens.cacheWrite,
  };
  const known = Object.fromEntries(Object.entries(counts).filter(([, count]) => typeof count === 'number'));
  return {
    usage: Object.keys(known).length > 0 ? known : undefined,
    model: modelId,
    // The SDK names providers with the API they use (`openai.responses`); the price table by the company.
    provider: providerId.split('.')[0],
  };
}
