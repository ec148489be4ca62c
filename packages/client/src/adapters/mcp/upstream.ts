import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CancelTaskRequestSchema,
  type ClientCapabilities,
  CreateMessageRequestSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  ListToolsResultSchema,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type Implementation,
  type ServerCapabilities,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { UpstreamUnreachable } from './upstream-failure';

/** Where the upstream MCP server is: a command the gateway starts (stdio), or a Streamable HTTP endpoint. */
export type UpstreamTarget =
  | { kind: 'stdio'; command: string; args: string[] }
  /** `headers`: sent with every request to the server (its credentials, from the gateway's environment). */
  | { kind: 'http'; url: string; headers?: Record<string, string> };

/** What the upstream server said about itself when the gateway first connected. */
export interface UpstreamIdentity {
  serverInfo: Implementation;
  capabilities: ServerCapabilities;
  instructions?: string;
}

/** How often a call naming a tool the server does not list may make the gateway read the list again. */
const UNLISTED_LOOK_INTERVAL_MS = 1_000;

/** The gateway's own name towards the upstream server. */
const GATEWAY_INFO = { name: 'holdfast-mcp-gateway', version: '0.1.0' };

/**
 * One client session's side of a connection of its own (session-upstream.ts): what the client declared it can do
 * for a server (sampling, elicitation, roots, and running the first two as tasks), declared again towards the upstream
 * server, and the way to pass the server's requests of those kinds on to that client.
 */
export interface ClientSide {
  capabilities: ClientCapabilities;
  /** Asks the client what the server asked (sampling/createMessage, elicitation/create, roots/list). */
  forward(request: ServerRequest, signal: AbortSignal): Promise<Record<string, unknown>>;
}

/**
 * A connection to the upstream server: the gateway's shared one (every client session's calls; JSON-RPC carries
 * many at once), or one client session's own, whose server-to-client requests reach that client (`side`). It
 * connects again on the next
 * request after the server went away (a stdio server that exited is started
 * again). It keeps the tool list, whose annotations decide which tools are
 * guarded, and passes the server's notifications on.
 */
export class Upstream {
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private tools = new Map<string, Tool>();
  private toolsRead = false;
  private toolsReadAt = 0;
  private reading: Promise<void> | undefined;

  constructor(
    private readonly target: UpstreamTarget,
    /** Called with each notification to pass on to the clients (list changes, log messages). */
    private readonly onNotification: (notification: ServerNotification) => void,
    private readonly log: (line: string) => void,
    /** Environment variables holding the gateway's secrets, never given to a stdio server it starts. */
    private readonly withheldEnv: readonly string[] = ['HOLDFAST_TOKEN'],
    /** A client session's own connection: what its client can do for the server, and how to ask it. */
    private readonly side?: ClientSide,
  ) {}

  /** Connects, and answers what the server said about itself. */
  async identity(): Promise<UpstreamIdentity> {
    const client = await this.connected();
    const serverInfo = client.getServerVersion();
    if (!serverInfo) throw new Error('the upstream server did not say who it is');
    return { serverInfo, capabilities: client.getServerCapabilities() ?? {}, instructions: client.getInstructions() };
  }

  /** Sends a request to the upstream server, connecting first if need be. */
  async request<Schema extends z.ZodType>(
    request: { method: string; params?: Record<string, unknown> },
    resultSchema: Schema,
    options?: RequestOptions,
  ): Promise<z.infer<Schema>> {
    const client = await this.connected();
    try {
      // The SDK's request is typed by its own union of requests; the gateway forwards them as they came.
      return (await client.request(
        request as Parameters<Client['request']>[0],
        resultSchema as never,
        options,
      )) as z.infer<Schema>;
    } catch (error) {
      // A 404 over Streamable HTTP is a session the server no longer knows (it restarted): the next request
      // connects again, with a new session.
      if (error instanceof StreamableHTTPError && error.code === 404 && this.client === client) {
        this.client = undefined;
        void client.close().catch(() => {});
      }
      throw error;
    }
  }

  /**
   * A tool as the server last listed it; undefined when the server does not list it (after a fresh look, at most
   * one a second for names it does not list: a client calling unknown names cannot make each call a tools/list, and
   * a tool the server adds is announced by its list-changed notification, which makes the next call look again).
   */
  async tool(name: string): Promise<Tool | undefined> {
    const unlistedLookAgain = !this.tools.has(name) && Date.now() - this.toolsReadAt >= UNLISTED_LOOK_INTERVAL_MS;
    if (!this.toolsRead || unlistedLookAgain) {
      // One read at a time: sixty-four concurrent calls need one tools/list, not sixty-four.
      this.reading ??= this.readTools().finally(() => {
        this.reading = undefined;
      });
      await this.reading;
    }
    return this.tools.get(name);
  }

  /** Keeps what a tools/list the gateway passed through said, so a listed tool's annotations are current. */
  remember(tools: Tool[]): void {
    for (const tool of tools) this.tools.set(tool.name, tool);
  }

  /** Tells the server the client's roots changed (a session's own connection only). */
  async rootsChanged(): Promise<void> {
    await (await this.connected()).sendRootsListChanged();
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.close();
  }

  private async readTools(): Promise<void> {
    const tools = new Map<string, Tool>();
    let cursor: string | undefined;
    do {
      const page = await this.request(
        { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
        ListToolsResultSchema,
      );
      for (const tool of page.tools) tools.set(tool.name, tool);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    this.tools = tools;
    this.toolsRead = true;
    this.toolsReadAt = Date.now();
  }

  private connected(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.connect()
      .catch((error: unknown) => {
        throw new UpstreamUnreachable(error);
      })
      .finally(() => {
        this.connecting = undefined;
      });
    return this.connecting;
  }

  private async connect(): Promise<Client> {
    // Toward the server the gateway can do what its client can: nothing for the shared connection, and for a
    // session's own what that session's client declared.
    const client = new Client(GATEWAY_INFO, { capabilities: this.side?.capabilities ?? {} });
    const side = this.side;
    if (side) {
      const ask = (request: ServerRequest, extra: { signal: AbortSignal }) => side.forward(request, extra.signal);
      if (side.capabilities.sampling) client.setRequestHandler(CreateMessageRequestSchema, ask as never);
      if (side.capabilities.elicitation) client.setRequestHandler(ElicitRequestSchema, ask as never);
      if (side.capabilities.roots) client.setRequestHandler(ListRootsRequestSchema, ask as never);
      if (side.capabilities.tasks) {
        for (const schema of [
          GetTaskRequestSchema,
          GetTaskPayloadRequestSchema,
          ListTasksRequestSchema,
          CancelTaskRequestSchema,
        ]) {
          client.setRequestHandler(schema, ask as never);
        }
      }
    }
    const transport =
      this.target.kind === 'stdio'
        ? new StdioClientTransport({
            command: this.target.command,
            args: this.target.args,
            env: upstreamEnvironment(this.withheldEnv),
            stderr: 'inherit',
          })
        : new StreamableHTTPClientTransport(new URL(this.target.url), {
            requestInit: { headers: this.target.headers ?? {} },
          });
    client.onclose = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.log('the upstream server closed the connection; the next call connects again');
    };
    await client.connect(transport);
    const passOn = (notification: ServerNotification) => this.onNotification(notification);
    client.setNotificationHandler(ToolListChangedNotificationSchema, (notification) => {
      this.toolsRead = false;
      passOn(notification);
    });
    client.setNotificationHandler(ResourceListChangedNotificationSchema, passOn);
    client.setNotificationHandler(PromptListChangedNotificationSchema, passOn);
    client.setNotificationHandler(LoggingMessageNotificationSchema, passOn);
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, passOn);
    this.client = client;
    // Another connection may list other tools.
    this.toolsRead = false;
    return client;
  }
}

/**
 * The gateway's environment for a stdio server it starts (a server needs its
 * own settings), without the gateway's secrets (its Holdfast token, its key
 * secret, its clients' secrets): the server is not Holdfast's client and has
 * no business holding them.
 */
function upstreamEnvironment(withheld: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && !withheld.includes(entry[0]),
    ),
  );
}
