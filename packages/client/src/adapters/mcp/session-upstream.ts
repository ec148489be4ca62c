import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CancelTaskResultSchema,
  type ClientCapabilities,
  CreateMessageResultSchema,
  CreateTaskResultSchema,
  ElicitResultSchema,
  GetTaskResultSchema,
  ListRootsResultSchema,
  ListTasksResultSchema,
  ResultSchema,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { Gateway } from './gateway';
import type { Upstream } from './upstream';

/** What a server may ask its client, and the schema of the client's answer. */
const ANSWERS = {
  'sampling/createMessage': CreateMessageResultSchema,
  'elicitation/create': ElicitResultSchema,
  'roots/list': ListRootsResultSchema,
  // A sampling or elicitation the client runs as a task: the server asks after it, and for its result, as it is.
  'tasks/get': GetTaskResultSchema,
  'tasks/result': ResultSchema,
  'tasks/list': ListTasksResultSchema,
  'tasks/cancel': CancelTaskResultSchema,
} as const;

/**
 * One client session's own connection to the upstream server, made on first need. A client that can answer the
 * server (it declared sampling, elicitation or roots) gets one, declaring the same toward the server, so a tool that
 * asks for a model's completion, a person's input or the roots reaches the client whose call it is; so does a
 * client that subscribes to a resource, so the updates reach it alone. Any other client shares the gateway's
 * connection. A request the server sends goes out on the stream of the client's call in flight (its newest), or
 * on the session's own stream when none is.
 */
export class SessionUpstream {
  private own: Upstream | undefined;
  private readonly callsInFlight: (string | number)[] = [];

  constructor(
    private readonly gateway: Gateway,
    private readonly server: Server,
  ) {}

  /** What the client can do for a server, of what the gateway passes on. */
  private clientCan(): ClientCapabilities {
    const declared = this.server.getClientCapabilities() ?? {};
    return {
      ...(declared.sampling ? { sampling: declared.sampling } : {}),
      ...(declared.elicitation ? { elicitation: declared.elicitation } : {}),
      ...(declared.roots ? { roots: declared.roots } : {}),
      ...clientTasksPassedOn(declared),
    };
  }

  /** The connection this session's requests go on: its own once it needs one, else the gateway's. */
  current(): Upstream {
    if (this.own) return this.own;
    return Object.keys(this.clientCan()).length > 0 ? this.ownConnection() : this.gateway.upstream;
  }

  /** The session's own connection, made now if need be (a subscription needs one whatever the client can do). */
  ownConnection(): Upstream {
    this.own ??= this.gateway.openSessionUpstream(
      { capabilities: this.clientCan(), forward: (request, signal) => this.ask(request, signal) },
      // What the server says while a call of this client runs (its log messages, say) goes out on that call's
      // stream, before its answer, as it would from the server itself.
      (notification) => {
        const relatedRequestId = this.callsInFlight.at(-1);
        void this.server
          .notification(notification, relatedRequestId === undefined ? undefined : { relatedRequestId })
          .catch(() => {});
      },
    );
    return this.own;
  }

  /** Runs `work` as a call in flight of the client's request `requestId`. */
  async during<T>(requestId: string | number, work: () => Promise<T>): Promise<T> {
    this.callsInFlight.push(requestId);
    try {
      return await work();
    } finally {
      this.callsInFlight.splice(this.callsInFlight.lastIndexOf(requestId), 1);
    }
  }

  async close(): Promise<void> {
    const own = this.own;
    this.own = undefined;
    if (own) await this.gateway.closeSessionUpstream(own).catch(() => {});
  }

  private async ask(request: ServerRequest, signal: AbortSignal): Promise<Record<string, unknown>> {
    const asTask = (request.params as { task?: unknown } | undefined)?.task !== undefined;
    const schema = asTask ? CreateTaskResultSchema : ANSWERS[request.method as keyof typeof ANSWERS];
    if (!schema) throw new Error(`the gateway does not pass ${request.method} on`);
    const relatedRequestId = this.callsInFlight.at(-1);
    return (await this.server.request(request, schema as never, {
      signal,
      ...(relatedRequestId === undefined ? {} : { relatedRequestId }),
    })) as Record<string, unknown>;
  }
}

/**
 * The part of a client's tasks capability the gateway passes on: sampling and elicitation run as the client's tasks
 * (where the client declared sampling or elicitation too), and the listing and cancelling of them.
 */
function clientTasksPassedOn(declared: ClientCapabilities): Pick<ClientCapabilities, 'tasks'> {
  const tasks = declared.tasks;
  if (!tasks) return {};
  const sampling = declared.sampling ? tasks.requests?.sampling : undefined;
  const elicitation = declared.elicitation ? tasks.requests?.elicitation : undefined;
  if (!sampling && !elicitation) return {};
  return {
    tasks: {
      ...(tasks.list ? { list: tasks.list } : {}),
      ...(tasks.cancel ? { cancel: tasks.cancel } : {}),
      requests: { ...(sampling ? { sampling } : {}), ...(elicitation ? { elicitation } : {}) },
    },
  };
}
