import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  CompleteResultSchema,
  EmptyResultSchema,
  GetPromptRequestSchema,
  GetPromptResultSchema,
  ListPromptsRequestSchema,
  ListPromptsResultSchema,
  ListResourcesRequestSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesRequestSchema,
  ListResourceTemplatesResultSchema,
  ListToolsRequestSchema,
  ListToolsResultSchema,
  ReadResourceRequestSchema,
  ReadResourceResultSchema,
  RootsListChangedNotificationSchema,
  SetLevelRequestSchema,
  type ServerCapabilities,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Gateway } from './gateway';
import { SessionUpstream } from './session-upstream';
import { IdenticalCalls } from './call-limits';
import { randomUUID } from 'node:crypto';
import { SessionTasks, taskTtlMs, toolTaskCapabilities } from './tool-tasks';

/**
 * The MCP server one client talks to (a stdio client, or one Streamable HTTP
 * session), whose calls are recorded for `agent`: the agent the gateway
 * vouches for, never the name the client gives itself. It answers as the upstream server does (its name, version and
 * instructions) with the capabilities the gateway can pass on: tools always;
 * resources, prompts, completions and logging when the upstream server has
 * them, resource subscriptions too. What the server asks of the client (sampling, elicitation, roots) reaches the
 * client whose call it is, over a connection of the session's own (session-upstream.ts). A server that runs tool calls
 * as tasks has them offered: the session keeps its client's tasks (tool-tasks.ts), and the server's tasks on its
 * client's side (a sampling run as a task) pass through to the client.
 */
export function createSessionServer(gateway: Gateway, agent: string): Server {
  const upstream = gateway.identity.capabilities;
  const capabilities: ServerCapabilities = {
    tools: { listChanged: true },
    ...(upstream.resources
      ? {
          resources: {
            listChanged: upstream.resources.listChanged ?? false,
            ...(upstream.resources.subscribe ? { subscribe: true } : {}),
          },
        }
      : {}),
    ...(upstream.prompts ? { prompts: { listChanged: upstream.prompts.listChanged ?? false } } : {}),
    ...(upstream.completions ? { completions: {} } : {}),
    ...(upstream.logging ? { logging: {} } : {}),
    ...toolTaskCapabilities(upstream),
  };
  const tasks = capabilities.tasks ? new SessionTasks() : undefined;
  // The low-level Server, not McpServer: the gateway declares no tools of its own, it relays another server's.
  const server = new Server(gateway.identity.serverInfo, {
    capabilities,
    ...(gateway.identity.instructions ? { instructions: gateway.identity.instructions } : {}),
    ...(tasks ? { taskStore: tasks.store } : {}),
  });

  const session = new SessionUpstream(gateway, server);
  // This session's own counts: its rate and its identical calls (call-limits.ts).
  const limits = { key: randomUUID(), identical: new IdenticalCalls() };

  // Listed on the session's connection: a server may offer more tools to a client that can answer its requests.
  server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    const connection = session.current();
    const page = await connection.request(request, ListToolsResultSchema, { signal: extra.signal });
    connection.remember(page.tools);
    return page;
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const asked = request.params.task;
    if (asked && tasks) {
      // Answered at once with a task; the call runs as any call does, its answer the task's result.
      const upstreamOfCall = session.current();
      await gateway.checkRunsAsTask(request.params.name, upstreamOfCall);
      return tasks.start(asked, extra.taskStore, (onStatus) =>
        gateway.callTool(request.params, {
          agent,
          upstream: upstreamOfCall,
          session: limits,
          task: { ttlMs: taskTtlMs(asked), onStatus },
        }),
      );
    }
    const progressToken = request.params._meta?.progressToken;
    // Progress goes out in order, and all of it before the answer: a client drops progress of a call it has
    // already been answered for.
    let progressSent: Promise<void> = Promise.resolve();
    return session.during(extra.requestId, async () => {
      const result = await gateway.callTool(
        request.params,
        {
          agent,
          upstream: session.current(),
          session: limits,
          progress:
            progressToken === undefined
              ? undefined
              : (progress) => {
                  progressSent = progressSent
                    .then(() =>
                      extra.sendNotification({
                        method: 'notifications/progress',
                        params: { ...progress, progressToken },
                      }),
                    )
                    .catch(() => {});
                },
        },
        extra.signal,
      );
      await progressSent;
      return result;
    });
  });

  // Everything else passes through as it came.
  const forward =
    <Schema extends Parameters<typeof gateway.upstream.request>[1]>(resultSchema: Schema) =>
    (request: { method: string; params?: Record<string, unknown> }, extra: { signal: AbortSignal }) =>
      session.current().request(request, resultSchema, { signal: extra.signal });
  if (capabilities.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, forward(ListResourcesResultSchema));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, forward(ListResourceTemplatesResultSchema));
    server.setRequestHandler(ReadResourceRequestSchema, forward(ReadResourceResultSchema));
  }
  if (capabilities.resources?.subscribe) {
    // A subscription is a connection's: its updates must reach this session alone.
    const onOwn =
      <Schema extends Parameters<typeof gateway.upstream.request>[1]>(resultSchema: Schema) =>
      (request: { method: string; params?: Record<string, unknown> }, extra: { signal: AbortSignal }) =>
        session.ownConnection().request(request, resultSchema, { signal: extra.signal });
    server.setRequestHandler(SubscribeRequestSchema, onOwn(EmptyResultSchema));
    server.setRequestHandler(UnsubscribeRequestSchema, onOwn(EmptyResultSchema));
  }
  // The client's roots changed: a server that asked for them hears it (over the session's own connection).
  server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    if (server.getClientCapabilities()?.roots)
      await session
        .current()
        .rootsChanged()
        .catch(() => {});
  });
  if (capabilities.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, forward(ListPromptsResultSchema));
    server.setRequestHandler(GetPromptRequestSchema, forward(GetPromptResultSchema));
  }
  if (capabilities.completions) server.setRequestHandler(CompleteRequestSchema, forward(CompleteResultSchema));
  if (capabilities.logging) server.setRequestHandler(SetLevelRequestSchema, forward(EmptyResultSchema));

  // The upstream server's list changes and log messages reach every client, while it is connected.
  const stopListening = gateway.listen((notification) => {
    if (notification.method === 'notifications/message' && !capabilities.logging) return;
    void server.notification(notification).catch(() => {});
  });
  server.onclose = () => {
    stopListening();
    tasks?.close();
    void session.close();
  };
  return server;
}
