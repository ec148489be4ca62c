import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayArgs } from '../../../packages/client/src/adapters/mcp/gateway-config';
import { type RunningGateway, serveGateway } from '../../../packages/client/src/adapters/mcp/serve';
import { demoServerEnv, type HoldfastServer, startHoldfastServer } from '../../support/holdfast-server';
import { addKnownOwners } from '../../support/known-owners';
import { connectHttpClient, TEST_KEY_SECRET, testClient, writeClientsFile } from '../../support/mcp-gateway-process';
import { startTestMcpServer, type TestMcpServer } from '../../support/mcp-test-server';
import { useTestDatabase } from '../../support/test-database';
import { issueToken } from '../../support/api-tokens';

/**
 * Each tool's policy through the gateway, explicit (packages/client/src/adapters/mcp/tool-policy.ts): a tool the
 * server does not list is the caller's error (-32602), arguments the tool's schema refuses a tool error, and
 * neither records anything or opens a hold; what a keyless repeat means per tool (one operation per window,
 * always run, or refuse), from annotations or the gateway's options; and a replayed result says so. Against a
 * real Holdfast, a real upstream MCP server counting its side effects, and the SDK's client.
 */
const database = useTestDatabase();
const OWNER = 'team:payments';
const AGENTS = ['unknown-agent', 'schema-agent', 'refuse-agent', 'always-agent', 'window-agent'];
const CLIENTS = AGENTS.map((agent) => testClient(agent));
const scratch = mkdtempSync(path.join(tmpdir(), 'holdfast-mcp-policy-'));
const clientsFile = writeClientsFile(path.join(scratch, 'clients.json'), CLIENTS);
let holdfast: HoldfastServer;
let token: string;
let upstream: TestMcpServer;
const running: RunningGateway[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  await addKnownOwners(database.db, [OWNER]);
  ({ token } = await issueToken(database.db, { name: 'mcp tool policy' }));
  upstream = await startTestMcpServer();
  holdfast = await startHoldfastServer({ env: demoServerEnv(database) });
}, 300_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
  await Promise.all(running.map((gateway) => gateway.close()));
  await upstream?.close();
  await holdfast?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** A gateway in this process, listening on a free port, with `extra` options; and a client of `agent`. */
async function clientThroughGateway(agent: string, ...extra: string[]): Promise<Client> {
  const config = parseGatewayArgs(
    [
      '--holdfast-url',
      holdfast.baseUrl,
      '--server-name',
      'payments',
      '--owner',
      OWNER,
      '--listen',
      '127.0.0.1:0',
      '--clients',
      clientsFile.file,
      '--upstream-url',
      upstream.url,
      ...extra,
    ],
    { ...clientsFile.env, HOLDFAST_TOKEN: token, HOLDFAST_MCP_KEY_SECRET: TEST_KEY_SECRET },
  );
  const gateway = await serveGateway(config, { log: () => {} });
  running.push(gateway);
  const client = await connectHttpClient(gateway.url!, agent, CLIENTS.find((each) => each.agent === agent)!.secret);
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) {
  return (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) }, CallToolResultSchema, {
    timeout: 60_000,
  })) as CallToolResult;
}

const textOf = (result: CallToolResult) =>
  result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n');

/** What Holdfast recorded for an agent: attempts, tasks, and holds on its tasks, keys or dead letters. */
async function recordsOf(agent: string) {
  const [row] = await database.sql<{ attempts: number; tasks: number; holds: number; dead_letters: number }[]>`
    select
      (select count(*)::int from attempts where agent = ${agent}) as attempts,
      (select count(*)::int from task_budgets where agent = ${agent}) as tasks,
      (select count(*)::int from holds where item_id in (
        select task_id from task_budgets where agent = ${agent}
        union all select key from idempotency_keys where agent = ${agent}
        union all select id::text from dead_letters where agent = ${agent})) as holds,
      (select count(*)::int from dead_letters where agent = ${agent}) as dead_letters`;
  return row!;
}
const NOTHING = { attempts: 0, tasks: 0, holds: 0, dead_letters: 0 };

describe("a tool's policy at the gateway", () => {
  it('answers a tool the server does not list with -32602, and records nothing', async () => {
    const client = await clientThroughGateway('unknown-agent');
    const error = await call(client, 'charge_crad', { orderId: 'o-typo' }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((error as McpError).message).toContain('Unknown tool: charge_crad');
    expect(await recordsOf('unknown-agent')).toEqual(NOTHING);
  });

  it('answers arguments the tool refuses as a tool error the model can read: nothing runs, nothing is held', async () => {
    const client = await clientThroughGateway('schema-agent');
    const refused = await call(client, 'charge_card', { orderId: 42 }, { 'io.holdfast/key': 'pay-schema' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(
      /^Holdfast gateway refused the call: the arguments do not fit charge_card's input schema: .*orderId/,
    );
    expect(upstream.count('charge_card')).toBe(0);
    expect(await recordsOf('schema-agent')).toEqual(NOTHING);
    // Put right, the same key runs it: the refusal took nothing of the key.
    const charged = await call(client, 'charge_card', { orderId: 'o-schema' }, { 'io.holdfast/key': 'pay-schema' });
    expect(charged.isError).toBeFalsy();
    expect(upstream.count('charge_card', 'o-schema')).toBe(1);
  });

  it('refuses a keyless call of a tool configured refuse, naming the fields to give; a keyed one runs', async () => {
    const client = await clientThroughGateway('refuse-agent', '--keyless', 'charge_card=refuse');
    const refused = await call(client, 'charge_card', { orderId: 'o-refuse' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('charge_card runs only when the call names its operation');
    expect(textOf(refused)).toContain('io.holdfast/key');
    expect(upstream.count('charge_card', 'o-refuse')).toBe(0);
    expect(await recordsOf('refuse-agent')).toEqual(NOTHING);
    await call(client, 'charge_card', { orderId: 'o-refuse' }, { 'io.holdfast/key': 'refuse-1' });
    expect(upstream.count('charge_card', 'o-refuse')).toBe(1);
  });

  it('runs every keyless call of an idempotent tool (by its annotations), each recorded as its own operation', async () => {
    const client = await clientThroughGateway('always-agent');
    const first = await call(client, 'set_limit', { orderId: 'o-always', limitCents: 500 });
    const second = await call(client, 'set_limit', { orderId: 'o-always', limitCents: 500 });
    expect(upstream.count('set_limit', 'o-always')).toBe(2);
    // Both ran: neither is marked a replay.
    expect(first._meta).toBeUndefined();
    expect(second._meta).toBeUndefined();
    const tasks = await database.sql<{ task_id: string }[]>`
      select task_id from task_budgets where agent = 'always-agent' order by task_id`;
    expect(tasks).toHaveLength(2);
    for (const task of tasks) expect(task.task_id).toMatch(/^mcp:call:always-agent:[0-9a-f-]{36}:[0-9a-f]{24}$/);
  });

  it('replays a keyless repeat inside the window when the options say so, marked as a replay of the first run', async () => {
    const client = await clientThroughGateway(
      'window-agent',
      '--keyless',
      'set_limit=window',
      '--dedup-window-ms',
      '86400000',
    );
    const before = Date.now();
    const first = await call(client, 'set_limit', { orderId: 'o-window', limitCents: 700 });
    const repeat = await call(client, 'set_limit', { orderId: 'o-window', limitCents: 700 });
    expect(upstream.count('set_limit', 'o-window')).toBe(1);
    expect(first._meta).toBeUndefined();
    expect(repeat.content).toEqual(first.content);
    const { firstRunAt } = repeat._meta!['io.holdfast/replayed'] as { firstRunAt: string };
    expect(Date.parse(firstRunAt)).toBeGreaterThanOrEqual(before - 1_000);
    expect(Date.parse(firstRunAt)).toBeLessThanOrEqual(Date.now());
  });
});
