import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { type StatefulMcpHost, serveStatefulMcp } from './stateful-mcp-host';
import { z } from 'zod';

export type AskingMcpServer = StatefulMcpHost;

const WATCHED = 'test://watched-resource';

/**
 * An MCP server written with the SDK that asks its client things while a tool runs, as the conformance suite's
 * test server does (its tool names): `test_sampling` asks for a model's completion (sampling/createMessage),
 * `test_elicitation` asks a person (elicitation/create), `test_roots` asks for the roots (roots/list); and
 * `touch_watched` changes `test://watched-resource`, telling the sessions subscribed to it. Stateful Streamable
 * HTTP: a session per client, since the client's answer to the server's request arrives as a request of its own.
 */
export async function startAskingMcpServer(
  options: { requireBearer?: string; requireHeader?: { name: string; value: string } } = {},
): Promise<AskingMcpServer> {
  const subscribers = new Map<string, McpServer>();

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

  return serveStatefulMcp(({ id, onEnd }) => {
    onEnd(() => {
      const ended = id();
      if (ended) subscribers.delete(ended);
    });
    return newServer(id);
  }, options);
}
