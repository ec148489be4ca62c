import { createHash, createHmac } from 'node:crypto';
import { hashContent } from '@holdfast/protocol/keys/derive-key';
import type { CallMeta } from './meta-fields';

/**
 * Which Holdfast step a guarded tools/call is. A step's key is
 * `<task>/<step>`, and its content (server, tool, arguments) guards it: the same
 * key with other content is a mismatch, never a silent replay. Every call is a
 * task of its own, so one call's dead letter or hold never blocks another
 * call, and two calls with different arguments never share a key:
 *
 * - `io.holdfast/key` K: task `mcp:key:K:S`; the client said which operation this is.
 * - `io.holdfast/task` T: task `T/mcp-S`; identical calls in one task are one operation.
 * - neither, for a tool whose keyless repeats are one operation per window (tool-policy.ts): task
 *   `mcp:window:<agent>:<window start>:S`; identical calls of one agent inside one deduplication window are one
 *   operation;
 * - neither, for a tool whose keyless calls always run: task `mcp:call:<agent>:<call id>:S`, the call id random,
 *   so each call is an operation of its own (still recorded, and never repeated once its outcome is unknown).
 *
 * S is a seal: the first 24 hex digits of an HMAC-SHA256, keyed by the
 * gateway's key secret, of the call's agent and what names the operation (K;
 * or T or the window, and the arguments' hash). Task ids are one namespace
 * shared by every agent, and a task keeps the agent it was first seen with, so
 * an id another agent's token could work out could be begun by it first, and
 * this agent's calls would be refused for ever. Without the secret no one can
 * work out S, and with the agent inside it two agents' calls are never one
 * task. K and T stay readable in the id, for the console.
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
  derivedFrom: 'key' | 'task' | 'window' | 'call';
}

export interface CallToIdentify {
  server: string;
  tool: string;
  arguments: Record<string, unknown> | undefined;
  meta: CallMeta;
  agent: string;
  /** The gateway's secret that seals every task id it derives (HOLDFAST_MCP_KEY_SECRET). */
  keySecret: string;
  /** The deduplication window's length, and the time that places the call in one. */
  windowMs: number;
  nowMs: number;
  /** For a keyless call of a tool whose keyless calls always run: this call's own random id. */
  callId?: string;
}

/** Hex digits of the seal: 96 bits, beyond guessing one begin at a time. */
const SEAL_LENGTH = 24;

/** Holdfast's limit on a step name (packages/protocol/src/names.ts). */
const MAX_STEP_LENGTH = 100;
/** Characters a step name may not hold become `_`. */
const OUTSIDE_STEP_NAME = /[^A-Za-z0-9_.:-]/g;

export function identifyCall(call: CallToIdentify): CallIdentity {
  const content = { server: call.server, tool: call.tool, arguments: call.arguments ?? {} };
  const step = stepNameOf(call.server, call.tool);
  const seal = (...parts: string[]) =>
    createHmac('sha256', call.keySecret)
      .update(JSON.stringify([call.agent, ...parts]))
      .digest('hex')
      .slice(0, SEAL_LENGTH);
  if (call.meta.key !== undefined) {
    return { taskId: `mcp:key:${call.meta.key}:${seal('key', call.meta.key)}`, step, content, derivedFrom: 'key' };
  }
  const contentHash = hashContent(content);
  if (call.meta.task !== undefined) {
    const taskId = `${call.meta.task}/mcp-${seal('task', call.meta.task, contentHash)}`;
    return { taskId, step, content, derivedFrom: 'task' };
  }
  if (call.callId !== undefined) {
    const taskId = `mcp:call:${call.agent}:${call.callId}:${seal('call', call.callId, contentHash)}`;
    return { taskId, step, content, derivedFrom: 'call' };
  }
  const windowStart = Math.floor(call.nowMs / call.windowMs) * call.windowMs;
  const startText = new Date(windowStart).toISOString().replace('.000Z', 'Z');
  const taskId = `mcp:window:${call.agent}:${startText}:${seal('window', startText, contentHash)}`;
  return { taskId, step, content, derivedFrom: 'window' };
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

/** The MCP server as a Holdfast downstream (`mcp:<server>`): what a pause or a downstream breaker names. */
export function downstreamNameOf(server: string): string {
  return `mcp:${server}`;
}
