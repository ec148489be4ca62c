/**
 * A key part from content, shared by the adapters, for a step that legitimately repeats within one task
 * (a model asked once a turn, a tool or task called with other arguments, a node visited again in a loop).
 * The begin request has no field
 * for a content hash in the key, so the hash becomes the step's `iteration`: the key reads
 * `<task>/<step>#<n>`, the step's name stays one name on the dashboard, and the same content gives the
 * same key after a crash or a re-run. The content itself is still sent, so the server's guard compares
 * it in full: two contents that share the 31 bits of `n` meet as KEY_PAYLOAD_MISMATCH (a hold), never as
 * one replaying the other's result.
 */

/** JSON with object keys sorted and undefined fields dropped, after each value's own toJSON. */
export function canonicalJson(value: unknown): string {
  const plain = JSON.parse(JSON.stringify(value ?? null)) as unknown;
  return canonicalOfPlain(plain);
}

function canonicalOfPlain(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalOfPlain).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonicalOfPlain(field)}`).join(',')}}`;
}

/** SHA-256 of the canonical JSON, in hex (Web Crypto: the adapters run wherever `fetch` does). */
export async function contentHash(value: unknown): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(canonicalJson(value)));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The iteration a content hash names: its first 31 bits, within begin's 0 to 2^31 - 1. */
export const iterationOfHash = (hash: string): number => Number.parseInt(hash.slice(0, 8), 16) & 0x7fffffff;
