import {
  type CallToolResult,
  CallToolResultSchema,
  CreateTaskResultSchema,
  ErrorCode,
  GetTaskResultSchema,
  McpError,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import type { Upstream } from './upstream';

/** How often the gateway asks an upstream task how it is, when the server names no interval of its own. */
const DEFAULT_POLL_MS = 500;
/** The bounds put on the server's own interval: not a busy loop, not a minute of silence. */
const MIN_POLL_MS = 100;
const MAX_POLL_MS = 5_000;

export interface UpstreamTaskOptions {
  /** The whole call's bound: past it the outcome is unknown (a timeout, as for a call that is not a task). */
  timeoutMs: number;
  /** How long the server is asked to keep the task. */
  ttlMs: number;
  /** Each status the server reports (working, input_required, with its message). */
  onStatus?: (status: Task['status'], message: string | undefined) => void;
  onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

/**
 * A tools/call run upstream as an MCP task, for a tool the server runs that way (its `execution.taskSupport` is
 * `optional` or `required`) when the client asked for a task: the call creates the task, its status is read every
 * poll interval the server names, and its result is what `tasks/result` answers (a tool error included). When the
 * server needs input, `tasks/result` is asked at once: the server's questions arrive over it and it waits for the
 * end. A task the server cancelled, or one still running at the timeout, leaves the call's outcome unknown.
 */
export async function callToolAsUpstreamTask(
  upstream: Upstream,
  request: { method: 'tools/call'; params: Record<string, unknown> },
  options: UpstreamTaskOptions,
): Promise<CallToolResult> {
  const deadline = Date.now() + options.timeoutMs;
  const remaining = () => {
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new McpError(ErrorCode.RequestTimeout, `the server's task did not end within ${options.timeoutMs} ms`);
    }
    return left;
  };
  const created = await upstream.request(request, CreateTaskResultSchema, {
    task: { ttl: options.ttlMs },
    timeout: remaining(),
    ...(options.onprogress ? { onprogress: options.onprogress } : {}),
  });
  const taskId = created.task.taskId;
  let task: Task = created.task;
  while (task.status === 'working') {
    const pollMs = Math.min(Math.max(task.pollInterval ?? DEFAULT_POLL_MS, MIN_POLL_MS), MAX_POLL_MS);
    await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, remaining())));
    task = await upstream.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema, {
      timeout: remaining(),
    });
    options.onStatus?.(task.status, task.statusMessage);
  }
  if (task.status === 'cancelled') {
    // Not a tool error the server answered: what the task did before it ended is not known.
    throw new Error(
      `the server's task ${taskId} ended ${task.status}${task.statusMessage ? `: ${task.statusMessage}` : ''}`,
    );
  }
  // completed, failed (a tool error, answered as the call would have answered it) or input_required (the
  // server's questions come over this request, which then waits for the task's end).
  return upstream.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema, {
    timeout: remaining(),
  });
}
