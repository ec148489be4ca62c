import { createHash } from 'node:crypto';
import { hashContent } from '../../core/keys/derive-key';
import type { CallMeta } from './meta-fields';

/**
 * Which Holdfast step a guarded tools/call is. A step's key is
 * `<task>/<step>`, and its content (server, tool, arguments) guards it: the same
 * key with other content is a mismatch, never a silent replay. Every call is a
 * task of its own, so one call's dead letter or hold never blocks another
 * call, and two calls with different arguments never share a key:
 *
 * - `io.holdfast/key` K: task `mcp:key:K`; the client said which operation this is.
 * - `io.holdfast/task` T: task `T/mcp-H`, H the first 16 hex digits of the
 *   SHA-256 of the canonical JSON of (server, tool, arguments).
 * - neither: task `mcp:window:<agent>:<window start>:H`; identical calls of one
 *   agent inside one deduplication window are one operation.
 *
 * The step is `<server>:<tool>`, so attempts, retry rates and retry pools
 * are per tool.
 */
export interface CallIdentity {
  taskId: string;
  step: string;
  /** What Holdfast hashes into the key's guard and keeps with a dead letter. */
  content: { server: string; tool: string; arguments: Record<string, unknown> };
  /** How the key was chosen, for the gateway's own messages. */
  derivedFrom: 'key' | 'task' | 'window';
}

export interface CallToIdentify {
  server: string;
  tool: string;
  arguments: Record<string, unknown> | undefined;
  meta: CallMeta;
  agent: string;
  /** The deduplication window's length, and the time that places the call in one. */
  windowMs: number;
  nowMs: number;
}

/** Holdfast's limit on a step name (lib/core/kernel/names.ts). */
const MAX_STEP_LENGTH = 100;
/** Characters a step name may not hold become `_`. */
const OUTSIDE_STEP_NAME = /[^A-Za-z0-9_.:-]/g;

export function identifyCall(call: CallToIdentify): CallIdentity {
  const content = { server: call.server, tool: call.tool, arguments: call.arguments ?? {} };
  const step = stepNameOf(call.server, call.tool);
  if (call.meta.key !== undefined) return { taskId: `mcp:key:${call.meta.key}`, step, content, derivedFrom: 'key' };
  const hash = hashContent(content).slice(0, 16);
  if (call.meta.task !== undefined)
    return { taskId: `${call.meta.task}/mcp-${hash}`, step, content, derivedFrom: 'task' };
  const windowStart = Math.floor(call.nowMs / call.windowMs) * call.windowMs;
  const startText = new Date(windowStart).toISOString().replace('.000Z', 'Z');
  return { taskId: `mcp:window:${call.agent}:${startText}:${hash}`, step, content, derivedFrom: 'window' };
}

/**
 * `<server>:<tool>` as a Holdfast step name: characters a name may not hold
 * become `_`, and a name too long keeps its first 91 characters and a short
 * hash of the tool, so two long tool names still make two steps.
 */
export function stepNameOf(server: string, tool: string): string {
  const name = `${server}:${tool.replace(OUTSIDE_STEP_NAME, '_')}`;
  if (name.length <= MAX_STEP_LENGTH) return name;
  const tail = createHash('sha256').update(tool).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_STEP_LENGTH - tail.length - 1)}-${tail}`;
}
