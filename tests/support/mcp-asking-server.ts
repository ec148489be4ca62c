import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  isInitializeRequest,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

export interface AskingMcpServer {
  url: string;
  /** How many sessions the server has had. */
  sessions(): number;
  close(): Promise<void>;
}

const WATCHED = 'test://watched-resource';

/**
 * An MCP server written with the SDK that asks its client things while a tool runs, as the conformance suite's
 * test server does (its tool names): `test_sampling` asks for a model's completion (sampling/createMessage),
 * `test_elicitation` asks a person (elicitation/create), `test_roots` asks for the roots (roots/list); and
 * `touch_watched` changes `test://watched-resource`, telling the sessions subscribed to it. Stateful Streamable
 * HTTP: a session per client, since the client's answer to the server's request arrives as a request of its own.
 */
export async function startAskingMcpServer(options: { requireBearer?: string } = {}): Promise<AskingMcpServer> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const subscribers = new Map<string, McpServer>();
  let sessions = 0;

  const newServer = (sessionId: () => string | undefined) => {
    const server = new McpServer(
      { name: 'test-asking', version: '1.0.0' },
      { capabilities: { resources: { subscribe: true, listChanged: false } } },
    );
    server.registerTool(
      'test_sampling',
      { description: "Asks the client's model", inputSchema: { prompt: z.string() } },
      async ({ prompt }, extra) => {
        const answer = await server.server.createMessage(
          { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 },
          { relatedRequestId: extra.requestId },
        );
        const text = answer.content.type === 'text' ? answer.content.text : `[${answer.content.type}]`;
        return { content: [{ type: 'text', text: `LLM response: ${text} (model ${answer.model})` }] };
      },
    );
    server.registerTool(
      'test_elicitation',
      { description: 'Asks a person', inputSchema: { message: z.string() } },
      async ({ message }, extra) => {
        const answer = await server.server.elicitInput(
          {
            message,
            requestedSchema: { type: 'object', properties: { username: { type: 'string' } }, required: ['username'] },
          },
          { relatedRequestId: extra.requestId },
        );
        return {
          content: [{ type: 'text', text: `elicited ${answer.action}: ${JSON.stringify(answer.content ?? {})}` }],
        };
      },
    );
    server.registerTool(
      'test_roots',
      { description: "Reads the client's roots", inputSchema: {}, annotations: { readOnlyHint: true } },
      async (_args, extra) => {
        const { roots } = await server.server.listRoots(undefined, { relatedRequestId: extra.requestId });
        return { content: [{ type: 'text', text: `roots: ${roots.map((root) => root.uri).join(', ')}` }] };
      },
    );
    server.registerTool('touch_watched', { description: 'Changes the watched resource', inputSchema: {} }, async () => {
      for (const subscriber of subscribers.values()) void subscriber.server.sendResourceUpdated({ uri: WATCHED });
      return { content: [{ type: 'text', text: `touched ${WATCHED} for ${subscribers.size} subscriber(s)` }] };
    });
    server.registerResource('watched', WATCHED, { mimeType: 'text/plain' }, async () => ({
      contents: [{ uri: WATCHED, text: 'watched' }],
    }));
    server.server.setRequestHandler(SubscribeRequestSchema, async () => {
      const id = sessionId();
      if (id) subscribers.set(id, server);
      return {};
    });
    server.server.setRequestHandler(UnsubscribeRequestSchema, async () => {
      const id = sessionId();
      if (id) subscribers.delete(id);
      return {};
    });
    return server;
  };

  const http: HttpServer = createServer((request, response) => {
    // A server that needs credentials: every request names its bearer token, or is answered 401.
    if (options.requireBearer && request.headers.authorization !== `Bearer ${options.requireBearer}`) {
      response.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
      return;
    }
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
      const id = request.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? transports.get(id) : undefined;
      if (!transport && request.method === 'POST' && isInitializeRequest(body)) {
        let assigned: string | undefined;
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sessionId) => {
            assigned = sessionId;
            transports.set(sessionId, transport!);
            sessions += 1;
          },
        });
        transport.onclose = () => {
          if (assigned) {
            transports.delete(assigned);
            subscribers.delete(assigned);
          }
        };
        await newServer(() => assigned).connect(transport);
      }
      if (!transport) {
        response.writeHead(404).end();
        return;
      }
      await transport.handleRequest(request, response, body);
    })().catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    sessions: () => sessions,
    close: async () => {
      for (const transport of transports.values()) await transport.close().catch(() => {});
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      await closed;
    },
  };
}
