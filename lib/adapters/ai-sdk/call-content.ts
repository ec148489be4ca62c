import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';

/**
 * What a model call's key is guarded by: a SHA-256 of its request (prompt,
 * tools, settings), not the request itself, so a long conversation never
 * exceeds what a step's content may hold. A redelivery that asks the same
 * thing at the same place matches; one that asks something else there is a
 * payload mismatch, held for a person, never a silent second answer.
 * Web Crypto, so the adapter runs wherever the AI SDK does.
 */
export async function callContent(
  params: LanguageModelV4CallOptions,
  model: { provider: string; modelId: string },
): Promise<{ model: string; requestSha256: string }> {
  // The abort signal and per-call headers say how to send the request, not what it asks.
  const { abortSignal: _signal, headers: _headers, ...request } = params;
  const bytes = new TextEncoder().encode(canonicalJson(request));
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return {
    model: `${model.provider}/${model.modelId}`,
    requestSha256: Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join(''),
  };
}

/** JSON with object keys sorted, bytes as base64 and URLs as text: one text for one request, whatever built it. */
export function canonicalJson(value: unknown): string {
  if (value instanceof Uint8Array) return JSON.stringify(base64Of(value));
  if (value instanceof URL) return JSON.stringify(value.href);
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, field]) => field !== undefined && typeof field !== 'function')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`).join(',')}}`;
}

/** Bytes as base64, without Node's Buffer (edge runtimes have none); in chunks, so large files do not overflow a call. */
export function base64Of(bytes: Uint8Array): string {
  let binary = '';
  for (let start = 0; start < bytes.length; start += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  }
  return btoa(binary);
}
