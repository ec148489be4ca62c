import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll } from 'vitest';
import { parseGatewayArgs } from '../../packages/client/src/adapters/mcp/gateway-config';
import { type RunningGateway, serveGateway } from '../../packages/client/src/adapters/mcp/serve';
import { issueToken } from './api-tokens';
import { demoServerEnv, type HoldfastServer, startHoldfastServer } from './holdfast-server';
import { addKnownOwners } from './known-owners';
import { connectHttpClient, TEST_KEY_SECRET, testClient, writeClientsFile } from './mcp-gateway-process';
import { startTestMcpServer, type TestMcpServer } from './mcp-test-server';
import type { useTestDatabase } from './test-database';

/**
 * A real Holdfast, the payments test server (mcp-test-server.ts), and listening gateways run in this process in
 * front of it, each reached by a client of one of `agents` (its own secret): what the gateway's policy and
 * controls tests share. `connect(agent, ...options)` starts a gateway with those options and connects a client.
 */
export function useInProcessGateways(database: ReturnType<typeof useTestDatabase>, owner: string, agents: string[]) {
  const clients = agents.map((agent) => testClient(agent));
  const scratch = mkdtempSync(path.join(tmpdir(), 'holdfast-mcp-'));
  const clientsFile = writeClientsFile(path.join(scratch, 'clients.json'), clients);
  const state = { holdfast: undefined as HoldfastServer | undefined, upstream: undefined as TestMcpServer | undefined };
  let token = '';
  const running: RunningGateway[] = [];
  const connected: Client[] = [];

  beforeAll(async () => {
    await addKnownOwners(database.db, [owner]);
    ({ token } = await issueToken(database.db, { name: 'mcp gateway in process' }));
    state.upstream = await startTestMcpServer();
    state.holdfast = await startHoldfastServer({ env: demoServerEnv(database) });
  }, 300_000);

  afterAll(async () => {
    await Promise.all(connected.map((client) => client.close().catch(() => {})));
    await Promise.all(running.map((gateway) => gateway.close()));
    await state.upstream?.close();
    await state.holdfast?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  return {
    get upstream(): TestMcpServer {
      return state.upstream!;
    },
    /** A gateway in this process with `extra` options (server `payments`); `connect(agent)` a client to it. */
    async start(...extra: string[]): Promise<{ gateway: RunningGateway; connect(agent: string): Promise<Client> }> {
      const config = parseGatewayArgs(
        [
          '--holdfast-url',
          state.holdfast!.baseUrl,
          '--server-name',
          'payments',
          '--owner',
          owner,
          '--listen',
          '127.0.0.1:0',
          '--clients',
          clientsFile.file,
          // The payments test server, unless the options name another after `--` (a command to start).
          ...(extra.includes('--') ? [] : ['--upstream-url', state.upstream!.url]),
          ...extra,
        ],
        { ...clientsFile.env, HOLDFAST_TOKEN: token, HOLDFAST_MCP_KEY_SECRET: TEST_KEY_SECRET },
      );
      const gateway = await serveGateway(config, { log: () => {} });
      running.push(gateway);
      return {
        gateway,
        async connect(agent: string) {
          const secret = clients.find((each) => each.agent === agent)!.secret;
          const client = await connectHttpClient(gateway.url!, agent, secret);
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
