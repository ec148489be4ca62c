import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, type CallToolResult, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayArgs } from '../../../packages/client/src/adapters/mcp/gateway-config';
import { type RunningGateway, serveGateway } from '../../../packages/client/src/adapters/mcp/serve';
import { createHoldfastClient } from '@holdfast/client';
import { createApiToken, SWEEPER } from '../../../packages/engine/src/core';
import { hashContent } from '@holdfast/protocol/keys/derive-key';
import { demoServerEnv, type HoldfastServer, startHoldfastServer } from '../../support/holdfast-server';
import { addKnownOwners } from '../../support/known-owners';
import {
  connectHttpClient,
  type GatewayProcess,
  startGatewayProcess,
  TEST_KEY_SECRET,
  testClient,
  writeClientsFile,
} from '../../support/mcp-gateway-process';
import { startTestMcpServer, type TestMcpServer } from '../../support/mcp-test-server';
import { useTestDatabase } from '../../support/test-database';
import { issueToken } from '../../support/api-tokens';

/**
 * Who the MCP gateway believes a caller is (issue 44): over HTTP a client
 * proves itself with its secret from the gateway's --clients file, and its
 * calls are its credential's agent's, whatever it calls itself; sessions are
 * bounded per client and end when idle (by a clock the test gives); `_meta`
 * names under io.holdfast/ are the gateway's in any case; and the task ids the
 * gateway derives cannot be taken first by another agent's token. Against a
 * real Holdfast, a real upstream MCP server (counting its side effects) and
 * the SDK's own client.
 */
const database = useTestDatabase();
const OWNER = 'team:payments';
const PAYMENTS = testClient('payments');
const RESEARCH = testClient('research');
const scratch = mkdtempSync(path.join(tmpdir(), 'holdfast-mcp-auth-'));
const clientsFile = writeClientsFile(path.join(scratch, 'clients.json'), [PAYMENTS, RESEARCH]);
let holdfast: HoldfastServer;
let token: string;
let upstream: TestMcpServer;
const gateways: GatewayProcess[] = [];
const inProcess: RunningGateway[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  await addKnownOwners(database.db, [OWNER]);
  ({ token } = await issueToken(database.db, { name: 'mcp gateway' }));
  upstream = await startTestMcpServer();
  holdfast = await startHoldfastServer({ env: demoServerEnv(database) });
}, 300_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
  await Promise.all(gateways.map((gateway) => gateway.stop()));
  await Promise.all(inProcess.map((gateway) => gateway.close()));
  await upstream?.close();
  await holdfast?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const gatewayArgs = (...extra: string[]) => [
  '--holdfast-url',
  holdfast.baseUrl,
  '--server-name',
  'payments',
  '--owner',
  OWNER,
  '--clients',
  clientsFile.file,
  '--upstream-url',
  upstream.url,
  ...extra,
];

async function startGateway(...extra: string[]): Promise<GatewayProcess> {
  const gateway = await startGatewayProcess(gatewayArgs(...extra), token, clientsFile.env);
  gateways.push(gateway);
  return gateway;
}

async function connect(url: string, name: string, secret: string): Promise<Client> {
  const client = await connectHttpClient(url, name, secret);
  clients.push(client);
  return client;
}

async function call(client: Client, args: Record<string, unknown>, meta?: Record<string, unknown>) {
  return (await client.callTool(
    { name: 'charge_card', arguments: args, ...(meta ? { _meta: meta } : {}) },
    CallToolResultSchema,
    { timeout: 120_000 },
  )) as CallToolResult;
}

const textOf = (result: CallToolResult) =>
  result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n');

const initializeBody = (name: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name, version: '1.0.0' } },
});

/** One raw request to the gateway, as any local process could send it. */
async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}

/** Opens a session with a bare initialize (no event stream is kept open): answers its id. */
async function openSession(url: string, secret: string): Promise<Response> {
  const response = await post(url, initializeBody('raw'), { authorization: `Bearer ${secret}` });
  await response.text();
  return response;
}

const ping = (url: string, secret: string, sessionId: string) =>
  post(
    url,
    { jsonrpc: '2.0', id: 2, method: 'ping' },
    { authorization: `Bearer ${secret}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
  );

describe('the MCP gateway authenticates its callers', () => {
  it('refuses a request with no credential or a wrong one with 401, and runs nothing', async () => {
    const gateway = await startGateway();
    const callBody = {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'charge_card', arguments: { orderId: 'o-anon' } },
    };
    for (const headers of <Record<string, string>[]>[
      {},
      { authorization: 'Bearer wrong-secret-wrong-secret-wrong-secret-1' },
      { authorization: `Bearer ${PAYMENTS.secret}x` },
      { authorization: `Basic ${Buffer.from(`payments:${PAYMENTS.secret}`).toString('base64')}` },
    ]) {
      for (const body of [initializeBody('payments'), callBody]) {
        const response = await post(gateway.url, body, headers);
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toBe('Bearer realm="holdfast-mcp"');
        expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
          /credential|--clients/,
        );
      }
    }
    // The SDK's client without a secret cannot connect either.
    await expect(connectHttpClient(gateway.url, 'payments')).rejects.toThrow(
      /no credential: send Authorization: Bearer/,
    );
    expect(upstream.count('charge_card', 'o-anon')).toBe(0);
    expect(await database.sql`select 1 from attempts`).toHaveLength(0);
  });

  it("gives a client naming itself payments with research's credential none of payments' results", async () => {
    const gateway = await startGateway();
    const payments = await connect(gateway.url, 'payments', PAYMENTS.secret);
    // payments' call answers a secret (the charge's id) that is stored for replays.
    const paid = await call(payments, { orderId: 'o-secret', amountCents: 900 }, { 'io.holdfast/key': 'refund-9' });
    expect(textOf(paid)).toMatch(/^charged 900 cents for o-secret: charge ch_\d+$/);
    const windowed = await call(payments, { orderId: 'o-window', amountCents: 100 });

    // research's credential, calling itself payments: the same key and the same unkeyed call are research's own
    // operations (the tool runs for it, as a call of research), never a replay of payments' stored answers.
    const impostor = await connect(gateway.url, 'payments', RESEARCH.secret);
    const keyed = await call(impostor, { orderId: 'o-secret', amountCents: 900 }, { 'io.holdfast/key': 'refund-9' });
    expect(textOf(keyed)).not.toBe(textOf(paid));
    expect(textOf(await call(impostor, { orderId: 'o-window', amountCents: 100 }))).not.toBe(textOf(windowed));
    expect(upstream.count('charge_card', 'o-secret')).toBe(2);

    const rows = await database.sql<{ agent: string; task_id: string; outcome: string }[]>`
      select agent, task_id, outcome from attempts where task_id like 'mcp:key:refund-9:%' order by id`;
    expect(rows.map((row) => [row.agent, row.outcome])).toEqual([
      ['payments', 'succeeded'],
      ['research', 'succeeded'],
    ]);
    expect(rows[0]!.task_id).not.toBe(rows[1]!.task_id);
    expect(
      (await database.sql<{ agent: string }[]>`select distinct agent from task_budgets order by agent`).map(
        (row) => row.agent,
      ),
    ).toEqual(['payments', 'research']);

    // A session is its client's: research's credential cannot use the session payments opened.
    const opened = await openSession(gateway.url, PAYMENTS.secret);
    const sessionId = opened.headers.get('mcp-session-id')!;
    expect((await ping(gateway.url, RESEARCH.secret, sessionId)).status).toBe(404);
    expect((await ping(gateway.url, PAYMENTS.secret, sessionId)).status).toBe(200);
  });

  it('caps the sessions one client may have open, and says so', async () => {
    const gateway = await startGateway('--max-sessions-per-client', '2');
    const first = await openSession(gateway.url, RESEARCH.secret);
    expect(first.status).toBe(200);
    expect((await openSession(gateway.url, RESEARCH.secret)).status).toBe(200);
    const refused = await post(gateway.url, initializeBody('research'), { authorization: `Bearer ${RESEARCH.secret}` });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
      /^client research-client has 2 sessions open, the most the gateway allows one client \(--max-sessions-per-client\)/,
    );
    // Another client is not held back by research's sessions.
    expect((await openSession(gateway.url, PAYMENTS.secret)).status).toBe(200);
    // Ending a session makes room.
    const ended = await fetch(gateway.url, {
      method: 'DELETE',
      headers: {
        authorization: `Bearer ${RESEARCH.secret}`,
        'mcp-session-id': first.headers.get('mcp-session-id')!,
        'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
      },
    });
    expect(ended.status).toBe(200);
    expect((await openSession(gateway.url, RESEARCH.secret)).status).toBe(200);
  });

  it('ends a session idle for --session-idle-ms, by the clock it is given', async () => {
    let nowMs = Date.UTC(2026, 0, 5, 10, 0, 0);
    const config = parseGatewayArgs(
      gatewayArgs('--listen', '127.0.0.1:0', '--max-sessions-per-client', '1', '--session-idle-ms', '60000'),
      { ...clientsFile.env, HOLDFAST_TOKEN: token, HOLDFAST_MCP_KEY_SECRET: TEST_KEY_SECRET },
    );
    const gateway = await serveGateway(config, { now: () => nowMs, log: () => {} });
    inProcess.push(gateway);
    const url = gateway.url!;

    const first = (await openSession(url, RESEARCH.secret)).headers.get('mcp-session-id')!;
    expect((await openSession(url, RESEARCH.secret)).status).toBe(429);
    // A request keeps a session alive: 59 s idle, a ping, another 59 s, and it is still there.
    nowMs += 59_000;
    expect((await ping(url, RESEARCH.secret, first)).status).toBe(200);
    nowMs += 59_000;
    expect((await ping(url, RESEARCH.secret, first)).status).toBe(200);
    // 60 s with no request: it is ended, its room is free, and its id is told to initialize again.
    nowMs += 60_000;
    const second = await openSession(url, RESEARCH.secret);
    expect(second.status).toBe(200);
    const expired = await ping(url, RESEARCH.secret, first);
    expect(expired.status).toBe(404);
    expect(((await expired.json()) as { error: { message: string } }).error.message).toMatch(/initialize again/);
  });

  it('takes an io.holdfast/ _meta name in another case as a misspelling, and never runs the tool again for it', async () => {
    const gateway = await startGateway();
    const client = await connect(gateway.url, 'payments', PAYMENTS.secret);
    const args = { orderId: 'o-case', amountCents: 300 };
    const charged = await call(client, args, { 'io.holdfast/key': 'case-1' });
    expect(textOf(charged)).toMatch(/^charged 300 cents for o-case/);
    for (const meta of [
      { 'IO.HOLDFAST/key': 'case-1' },
      { 'Io.Holdfast/Key': 'case-1' },
      { 'io.holdfast/KEY': 'case-1' },
      { 'ｉｏ.holdfast/key': 'case-1' },
      { 'io.holdfast/key': 'case-1', 'IO.HOLDFAST/key': 'case-2' },
    ]) {
      const result = await call(client, args, meta);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^Holdfast gateway refused the call: _meta ".+" is not a field of the gateway/);
      expect(textOf(result)).toContain('spelt in lower case');
    }
    expect(upstream.count('charge_card', 'o-case')).toBe(1);
  });

  it("lets the rightful agent's call run although another agent's token began the ids it could work out", async () => {
    const gateway = await startGateway();
    const squatter = createHoldfastClient({
      baseUrl: holdfast.baseUrl,
      token: (
        await createApiToken(
          { db: database.db, actor: SWEEPER },
          { name: 'research only', scopes: ['ingest'], allowedAgents: ['research'] },
        )
      ).token,
    });
    const args = { orderId: 'o-squat', amountCents: 4200 };
    const content = { server: 'payments', tool: 'charge_card', arguments: args };
    // Every id research could derive from what it knows: the gateway's old forms, and guesses at the new ones.
    const guesses = [
      'mcp:key:refund-42',
      'mcp:key:refund-42:000000000000000000000000',
      `order-squat/mcp-${hashContent(content).slice(0, 16)}`,
      `order-squat/mcp-${hashContent(content).slice(0, 24)}`,
    ];
    for (const taskId of guesses) {
      const begun = await squatter.beginStep({
        taskId,
        agent: 'research',
        owner: OWNER,
        step: 'payments:charge_card',
        content,
      });
      expect(begun.decision).toBe('run');
    }

    const payments = await connect(gateway.url, 'payments', PAYMENTS.secret);
    const keyed = await call(payments, args, { 'io.holdfast/key': 'refund-42' });
    expect(keyed.isError).toBeFalsy();
    expect(textOf(keyed)).toMatch(/^charged 4200 cents for o-squat: charge ch_\d+$/);
    const inTask = await call(payments, args, { 'io.holdfast/task': 'order-squat' });
    expect(inTask.isError).toBeFalsy();
    expect(upstream.count('charge_card', 'o-squat')).toBe(2);
    // A repeat replays (one operation each), and research's squatted tasks are still research's alone.
    expect((await call(payments, args, { 'io.holdfast/key': 'refund-42' })).content).toEqual(keyed.content);
    expect(upstream.count('charge_card', 'o-squat')).toBe(2);
    const owners = await database.sql<{ task_id: string; agent: string }[]>`
      select task_id, agent from task_budgets where task_id like 'mcp:key:refund-42%' or task_id like 'order-squat/%'`;
    const paymentsTasks = owners.filter((row) => row.agent === 'payments').map((row) => row.task_id);
    expect(paymentsTasks).toHaveLength(2);
    for (const taskId of paymentsTasks) expect(guesses).not.toContain(taskId);
    expect(
      owners
        .filter((row) => row.agent === 'research')
        .map((row) => row.task_id)
        .sort(),
    ).toEqual([...guesses].sort());
  });
});
