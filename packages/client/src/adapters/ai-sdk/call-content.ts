import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { contentHash } from '../content-key';

/**
 * What a model call's key is guarded by: a SHA-256 of its request (prompt,
 * tools, settings), not the request itself, so a long conversation never
 * exceeds what a step's content may hold. A redelivery that asks the same
 * thing at the same place matches; one that asks something else there is a
 * payload mismatch, held for a person, never a silent second answer.
 */
export async function callContent(
  params: LanguageModelV4CallOptions,
  model: { provider: string; modelId: string },
): Promise<{ model: string; requestSha256: string }> {
  // The abort signal and per-call headers say how to send the request, not what it asks.
  const { abortSignal: _signal, headers: _headers, ...request } = params;
  return { model: `${model.provider}/${model.modelId}`, requestSha256: await contentHash(request) };
}

/** Bytes as base64, without Node's Buffer (edge runtimes have none); in chunks, so large files do not overflow a call. */
export function base64Of(bytes: Uint8Array): string {
  let binary = '';
  for (let start = 0; start < bytes.length; start += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  }
  return btoa(binary);
}
