import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { RequestTaskStore } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolResult,
  type CreateTaskResult,
  ErrorCode,
  McpError,
  type ServerCapabilities,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';

/** How long a task's result is kept when the client names no time, and the most it may ask for. */
const DEFAULT_TASK_TTL_MS = 5 * 60_000;
const MAX_TASK_TTL_MS = 60 * 60_000;
/** The interval the gateway asks its clients to poll at. */
const TASK_POLL_MS = 500;
/** A session's bounds: tasks not yet ended, and tasks kept (ended ones stay until their time runs out). */
export const MAX_OPEN_TASKS = 32;
export const MAX_KEPT_TASKS = 1_000;

/**
 * The tasks a gateway session offers its client (MCP tasks, 2025-11-25) when the upstream server runs tool calls
 * as tasks: the gateway keeps the session's tasks itself, and lists and cancels them.
 */
export function toolTaskCapabilities(upstream: ServerCapabilities): Pick<ServerCapabilities, 'tasks'> {
  return upstream.tasks?.requests?.tools?.call
    ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }
    : {};
}

/**
 * One session's tasks: a tools/call the client asked to run as a task is answered at once with a task of the
 * gateway's own, and the call runs as any call does (guarded or not, limits and all); its answer becomes the task's
 * result, and a tool error or a refusal fails the task with that answer, as the spec has it. The tasks live in the
 * gateway's memory, so they last as long as the session: a restarted gateway knows none of them (a guarded call's
 * outcome is Holdfast's, and the same call with the same key again is answered from there).
 */
export class SessionTasks {
  readonly store = new InMemoryTaskStore();

  /**
   * Starts `run` as a task and answers its creation. `run` is told each status the work reports. A cancelled
   * task's work is not stopped: a guarded call runs to its answer so that the answer is recorded (a call the
   * caller stopped waiting for is treated the same way).
   */
  async start(
    requested: { ttl?: number | null } | undefined,
    tasks: RequestTaskStore | undefined,
    run: (onStatus: (status: Task['status'], message: string | undefined) => void) => Promise<CallToolResult>,
  ): Promise<CreateTaskResult> {
    if (!tasks) throw new McpError(ErrorCode.InternalError, 'this session keeps no tasks');
    const kept = this.store.getAllTasks();
    if (kept.length >= MAX_KEPT_TASKS || kept.filter((task) => !ended(task.status)).length >= MAX_OPEN_TASKS) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `this session already keeps ${kept.length} tasks (at most ${MAX_OPEN_TASKS} running and ${MAX_KEPT_TASKS} kept); ` +
          'wait for one to end, or call without a task',
      );
    }
    const task = await tasks.createTask({ ttl: taskTtlMs(requested), pollInterval: TASK_POLL_MS });
    const onStatus = (status: Task['status'], message: string | undefined) => {
      // Only the statuses a running task can take; its end is the result's to say.
      if (status === 'working' || status === 'input_required') {
        void tasks.updateTaskStatus(task.taskId, status, message).catch(() => {});
      }
    };
    void run(onStatus)
      .catch((error: unknown): CallToolResult => {
        const message = error instanceof Error ? error.message : String(error);
        return { content: [{ type: 'text', text: message }], isError: true };
      })
      // A task the client cancelled, or whose time ran out, takes no result.
      .then((result) => tasks.storeTaskResult(task.taskId, result.isError ? 'failed' : 'completed', result))
      .catch(() => {});
    return { task };
  }

  close(): void {
    this.store.cleanup();
  }
}

/** The time a task is kept: what the client asked for, within the gateway's bounds. */
export function taskTtlMs(requested: { ttl?: number | null } | undefined): number {
  return Math.min(Math.max(requested?.ttl ?? DEFAULT_TASK_TTL_MS, 1_000), MAX_TASK_TTL_MS);
}

function ended(status: Task['status']): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}
