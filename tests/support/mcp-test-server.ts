import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** One side effect a tool performed: which tool, for which order, in what order overall. */
export interface SideEffect {
  tool: string;
  orderId: string;
  number: number;
}

export interface TestMcpServer {
  /** Its Streamable HTTP endpoint on 127.0.0.1. */
  url: string;
  /** Every side effect so far, in order. */
  effects: SideEffect[];
  /** How many side effects a tool performed for an order (or for every order). */
  count(tool: string, orderId?: string): number;
  /** Lets every blocked `slow_charge` of this order answer. */
  release(orderId: string): void;
  close(): Promise<void>;
}

/**
 * A payments MCP server written with the SDK, as a team would write one, that
 * counts what it does. Its tools:
 * - `charge_card`: charges at once (a side effect) and answers the charge's id;
 * - `slow_charge`: charges on entry, then answers only when the test releases the order;
 * - `failing_charge`: charges nothing and answers a tool error with the text it is given;
 * - `flaky_charge`: answers "503 Service Unavailable" while `failuresLeft` says so, then charges;
 * - `get_balance`: annotated `readOnlyHint: true`; counts its calls.
 * - `set_limit`: annotated `idempotentHint: true` (setting the same limit twice changes nothing more); counts its
 *   calls, each a side effect.
 * - `send_sms`: sends a text (a side effect) and answers, as structured content, the segments it took (160
 *   characters each), as an SMS provider bills them.
 * Stateless Streamable HTTP: every request gets a fresh McpServer over the shared counters.
 */
export async function startTestMcpServer(): Promise<TestMcpServer> {
  const effects: SideEffect[] = [];
  const gates = new Map<string, { opened: Promise<void>; open: () => void }>();
  const flakyFailures = new Map<string, number>();
  const gate = (orderId: string) => {
    let entry = gates.get(orderId);
    if (!entry) {
      let open: () => void = () => {};
      const opened = new Promise<void>((resolve) => {
        open = resolve;
      });
      entry = { opened, open };
      gates.set(orderId, entry);
    }
    return entry;
  };
  const perform = (tool: string, orderId: string) => {
    const effect = { tool, orderId, number: effects.length + 1 };
    effects.push(effect);
    return effect;
  };
  const answer = (text: string) => ({ content: [{ type: 'text' as const, text }] });

  const newServer = () => {
    const server = new McpServer({ name: 'test-payments', version: '1.0.0' });
    const order = { orderId: z.string(), amountCents: z.number().int().optional() };
    server.registerTool(
      'charge_card',
      { description: 'Charges a card', inputSchema: order, annotations: { destructiveHint: true } },
      async ({ orderId, amountCents }) => {
        const effect = perform('charge_card', orderId);
        return answer(`charged ${amountCents ?? 0} cents for ${orderId}: charge ch_${effect.number}`);
      },
    );
    server.registerTool(
      'slow_charge',
      { description: 'Charges, then waits', inputSchema: order },
      async ({ orderId }) => {
        const effect = perform('slow_charge', orderId);
        await gate(orderId).opened;
        return answer(`charged ${orderId} slowly: charge ch_${effect.number}`);
      },
    );
    server.registerTool(
      'failing_charge',
      { description: 'Fails as told', inputSchema: { orderId: z.string(), message: z.string() } },
      async ({ message }) => ({ ...answer(message), isError: true }),
    );
    server.registerTool(
      'flaky_charge',
      { description: 'Fails while told to, then charges', inputSchema: { orderId: z.string(), failures: z.number() } },
      async ({ orderId, failures }) => {
        const failed = flakyFailures.get(orderId) ?? 0;
        if (failed < failures) {
          flakyFailures.set(orderId, failed + 1);
          return { ...answer('upstream answered 503 Service Unavailable'), isError: true };
        }
        const effect = perform('flaky_charge', orderId);
        return answer(`charged ${orderId}: charge ch_${effect.number}`);
      },
    );
    server.registerTool(
      'get_balance',
      {
        description: 'Reads the balance',
        inputSchema: { orderId: z.string() },
        annotations: { readOnlyHint: true },
      },
      async ({ orderId }) => {
        perform('get_balance', orderId);
        return answer(`balance for ${orderId}: 1000`);
      },
    );
    server.registerTool(
      'set_limit',
      {
        description: "Sets an order's limit",
        inputSchema: { orderId: z.string(), limitCents: z.number().int() },
        annotations: { idempotentHint: true, destructiveHint: false },
      },
      async ({ orderId, limitCents }) => {
        const effect = perform('set_limit', orderId);
        return answer(`limit of ${orderId} set to ${limitCents}: change ${effect.number}`);
      },
    );
    server.registerTool(
      'send_sms',
      {
        description: 'Sends a text message',
        inputSchema: { orderId: z.string(), text: z.string() },
        outputSchema: { segments: z.number().int() },
      },
      async ({ orderId, text }) => {
        const effect = perform('send_sms', orderId);
        const segments = Math.max(1, Math.ceil(text.length / 160));
        return {
          ...answer(`sent ${orderId} in ${segments} segments: message m_${effect.number}`),
          structuredContent: { segments },
        };
      },
    );
    return server;
  };

  const http: HttpServer = createServer((request, response) => {
    void (async () => {
      const server = newServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      response.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request, response);
    })().catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  const { port } = http.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    effects,
    count: (tool, orderId) =>
      effects.filter((effect) => effect.tool === tool && (orderId === undefined || effect.orderId === orderId)).length,
    release: (orderId) => gate(orderId).open(),
    close: async () => {
      for (const entry of gates.values()) entry.open();
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      await closed;
    },
  };
}
