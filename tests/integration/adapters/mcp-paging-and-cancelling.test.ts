import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  type CallToolResult,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, serveGateway } from '../../../packages/client/src/adapters/mcp/serve';
import { waitFor } from '../../../scripts/ci/faults/killable-postgres';
import { serveStatefulMcp, type StatefulMcpHost } from '../../support/stateful-mcp-host';
import { useGatewayHoldfast } from '../../support/mcp-gateway-holdfast';
import { useTestDatabase } from '../../support/test-database';

/**
 * What a server pages and what a client cancels, through the gateway: a server that lists its tools and prompts two
 * at a time is paged through as it pages (the client's cursor reaches it; a guarded tool on the second page is found
 * and run), and an unguarded call the client cancels is cancelled at the server. Against a server written with the
 * SDK's low-level handlers (it pages, which the SDK's McpServer does not) and a real Holdfast.
 */
const database = useTestDatabase();
const base = useGatewayHoldfast(database, 'team:research', ['pager']);
const PAGE = 2;
let upstream: StatefulMcpHost;
let gateway: RunningGateway;
let client: Client;
/** What the server ran, and the cancellations it saw. */
const ran: string[] = [];
const cancelled: string[] = [];

const TOOLS: Tool[] = [
  {
    name: 'list_orders',
    description: 'Lists orders',
    inputSchema: { type: 'object' },
    annotations: { readOnlyHint: true },
  },
  { name: 'wait_for_ever', description: 'Waits', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
  { name: 'refund_order', description: 'Refunds an order (on the second page)', inputSchema: { type: 'object' } },
];
const PROMPTS = ['summarise', 'triage', 'apologise'].map((name) => ({ name, description: `The ${name} prompt` }));

/** One page of `items` from the cursor (its index, as text), with the next cursor while any are left. */
function pageOf<Item>(items: Item[], cursor: string | undefined) {
  const from = cursor === undefined ? 0 : Number(cursor);
  const next = from + PAGE;
  return { items: items.slice(from, next), nextCursor: next < items.length ? String(next) : undefined };
}

beforeAll(async () => {
  upstream = await serveStatefulMcp(() => {
    const server = new McpServer(
      { name: 'test-pager', version: '1.0.0' },
      { capabilities: { tools: {}, prompts: {} } },
    );
    server.server.setRequestHandler(ListToolsRequestSchema, async (request) => {
      const { items, nextCursor } = pageOf(TOOLS, request.params?.cursor);
      return { tools: items, ...(nextCursor ? { nextCursor } : {}) };
    });
    server.server.setRequestHandler(ListPromptsRequestSchema, async (request) => {
      const { items, nextCursor } = pageOf(PROMPTS, request.params?.cursor);
      return { prompts: items, ...(nextCursor ? { nextCursor } : {}) };
    });
    server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const name = request.params.name;
      ran.push(name);
      if (name === 'wait_for_ever') {
        await new Promise<void>((resolve) => extra.signal.addEventListener('abort', () => resolve()));
        cancelled.push(name);
      }
      return { content: [{ type: 'text', text: `ran ${name}` }] };
    });
    return server;
  });
  gateway = await serveGateway(base.options('pager', ['--upstream-url', upstream.url]), { log: () => {} });
  client = new Client({ name: 'pager', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(gateway.url!), {
      requestInit: { headers: { authorization: `Bearer ${base.clientOf('pager').secret}` } },
    }),
  );
});

afterAll(async () => {
  await client?.close().catch(() => {});
  await gateway?.close();
  await upstream?.close();
});

describe('paging through the gateway', () => {
  it('passes each page and its cursor as the server pages them, tools and prompts alike', async () => {
    const firstTools = await client.listTools();
    expect(firstTools.tools.map((tool) => tool.name)).toEqual(['list_orders', 'wait_for_ever']);
    expect(firstTools.nextCursor).toBe('2');
    const secondTools = await client.listTools({ cursor: firstTools.nextCursor });
    expect(secondTools.tools.map((tool) => tool.name)).toEqual(['refund_order']);
    expect(secondTools.nextCursor).toBeUndefined();

    const firstPrompts = await client.listPrompts();
    expect(firstPrompts.prompts.map((prompt) => prompt.name)).toEqual(['summarise', 'triage']);
    const secondPrompts = await client.listPrompts({ cursor: firstPrompts.nextCursor });
    expect(secondPrompts.prompts.map((prompt) => prompt.name)).toEqual(['apologise']);
  });

  it('finds a guarded tool listed on the second page and runs it as a Holdfast step', async () => {
    const result = (await client.callTool(
      { name: 'refund_order', arguments: {}, _meta: { 'io.holdfast/key': 'refund-paged-1' } },
      CallToolResultSchema,
    )) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(ran).toContain('refund_order');
    const [attempt] = await database.sql<{ step: string; outcome: string }[]>`
      select step, outcome from attempts where agent = 'pager' and step = 'pager:refund_order'`;
    expect(attempt).toEqual({ step: 'pager:refund_order', outcome: 'succeeded' });
  });
});

describe('cancelling through the gateway', () => {
  it('cancels an unguarded call at the server when its client cancels it, and records nothing', async () => {
    const cancel = new AbortController();
    const call = client
      .callTool({ name: 'wait_for_ever', arguments: {} }, CallToolResultSchema, { signal: cancel.signal })
      .catch((error: unknown) => error);
    await waitFor(() => ran.includes('wait_for_ever'), 10_000, 'the server to get the call');
    cancel.abort('the person stopped it');
    expect(await call).toBeInstanceOf(Error);
    await waitFor(() => cancelled.includes('wait_for_ever'), 10_000, 'the server to see the cancellation');
    expect(await database.sql`select 1 from attempts where step = 'pager:wait_for_ever'`).toHaveLength(0);
  });
});
