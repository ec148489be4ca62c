import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll } from 'vitest';
import { type RunningGateway, serveGateway } from '../../packages/client/src/adapters/mcp/serve';
import { connectHttpClient } from './mcp-gateway-process';
import { useGatewayHoldfast } from './mcp-gateway-holdfast';
import { startTestMcpServer, type TestMcpServer } from './mcp-test-server';
import type { useTestDatabase } from './test-database';

/**
 * A real Holdfast, the payments test server (mcp-test-server.ts), and listening gateways run in this process in
 * front of it, each reached by a client of one of `agents` (its own secret): what the gateway's policy and
 * controls tests share. `connect(agent, ...options)` starts a gateway with those options and connects a client.
 */
export function useInProcessGateways(database: ReturnType<typeof useTestDatabase>, owner: string, agents: string[]) {
  const base = useGatewayHoldfast(database, owner, agents);
  const state = { upstream: undefined as TestMcpServer | undefined };
  const running: RunningGateway[] = [];
  const connected: Client[] = [];

  beforeAll(async () => {
    state.upstream = await startTestMcpServer();
  });

  afterAll(async () => {
    await Promise.all(connected.map((client) => client.close().catch(() => {})));
    await Promise.all(running.map((gateway) => gateway.close()));
    await state.upstream?.close();
  });

  return {
    get upstream(): TestMcpServer {
      return state.upstream!;
    },
    /** A gateway in this process with `extra` options (server `payments`); `connect(agent)` a client to it. */
    async start(...extra: string[]): Promise<{ gateway: RunningGateway; connect(agent: string): Promise<Client> }> {
      // The payments test server, unless the options name another after `--` (a command to start).
      const upstream = extra.includes('--') ? extra : ['--upstream-url', state.upstream!.url, ...extra];
      const gateway = await serveGateway(base.options('payments', upstream), { log: () => {} });
      running.push(gateway);
      return {
        gateway,
        async connect(agent: string) {
          const client = await connectHttpClient(gateway.url!, agent, base.clientOf(agent).secret);
          connected.push(client);
          return client;
        },
      };
    },
    /** A gateway of its own with `extra` options, and a client of `agent` connected to it. */
    async connect(agent: string, ...extra: string[]): Promise<Client> {
      return (await this.start(...extra)).connect(agent);
    },
  };
}

/** One tools/call through an SDK client, with the gateway's `_meta` fields when given. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
  timeoutMs = 60_000,
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) }, CallToolResultSchema, {
    timeout: timeoutMs,
  })) as CallToolResult;
}

export const textOfResult = (result: CallToolResult) =>
  result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n');
