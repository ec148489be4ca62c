import { createHash } from 'node:crypto';

/**
 * Keys name the logical operation, never the attempt: the same task and step
 * (and iteration, for loops) give the same key after a crash and redelivery.
 */
export function deriveKey(parts: { taskId: string; step: string; iteration?: number }): string {
  const base = `${parts.taskId}/${parts.step}`;
  return parts.iteration === undefined ? base : `${base}#${parts.iteration}`;
}

/** A stable hash of a JSON-like value: object keys are sorted, so key order does not matter. */
export function hashContent(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, field]) => field !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`).join(',')}}`;
}
