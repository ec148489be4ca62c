import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiToken, SWEEPER } from '../../lib/core';
import { waitFor } from '../../scripts/ci/faults/killable-postgres';
import { type HoldfastServer, startHoldfastServer } from '../support/holdfast-server';
import { addKnownOwners } from '../support/known-owners';
import {
  connectHttpClient,
  connectStdioClient,
  type GatewayProcess,
  startGatewayProcess,
} from '../support/mcp-gateway-process';
import { startTestMcpServer, type TestMcpServer } from '../support/mcp-test-server';
import { useTestDatabase } from '../support/test-database';

/**
 * The MCP gateway (lib/adapters/mcp) between a real MCP server written with
 * the SDK (tests/support/mcp-test-server.ts, counting its side effects) and
 * real MCP clients (the SDK's Client), against a running Holdfast (the
 * production server): the gateway runs as its CLI, in its own process, so it
 * can be killed. Every figure is read from the upstream server's own count
 * and from the database.
 */
const database = useTestDatabase();
const OWNER = 'team:payments';
let holdfast: HoldfastServer;
let token: string;
let upstream: TestMcpServer;
const gateways: GatewayProcess[] = [];
const clients: Client[] = [];

/** The gateway's arguments in front of the test server, with `extra` options. */
const gatewayArgs = (...extra: string[]) => [
  '--holdfast-url',
  holdfast.baseUrl,
  '--server-name',
  'payments',
  '--owner',
  OWNER,
  '--upstream-url',
  upstream.url,
  ...extra,
];

beforeAll(async () => {
  await addKnownOwners(database.db, [OWNER]);
  // The step endpoints (begin, finish) and opening a hold are the ingest scope's (lib/core/authorization.ts).
  token = (await createApiToken({ db: database.db, actor: SWEEPER }, { name: 'mcp gateway test', scopes: ['ingest'] }))
    .token;
  upstream = await startTestMcpServer();
  holdfast = await startHoldfastServer({
    env: {
      DATABASE_URL: database.appUrl,
      DATABASE_MIGRATION_URL: database.ownerUrl,
      SESSION_SECRET: randomBytes(32).toString('hex'),
      AUTH_MODE: 'demo',
      HOLDFAST_INSECURE_DEMO: '1',
    },
  });
}, 300_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
  await Promise.all(gateways.map((gateway) => gateway.stop()));
  await upstream?.close();
  await holdfast?.stop();
});

async function gatewayOverHttp(...extra: string[]): Promise<GatewayProcess> {
  const gateway = await startGatewayProcess(gatewayArgs(...extra), token);
  gateways.push(gateway);
  return gateway;
}

async function httpClient(url: string, name: string): Promise<Client> {
  const client = await connectHttpClient(url, name);
  clients.push(client);
  return client;
}

async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) }, CallToolResultSchema, {
    timeout: 120_000,
  })) as CallToolResult;
}

const textOf = (result: CallToolResult) =>
  result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n');

interface AttemptRow {
  task_id: string;
  agent: string;
  step: string;
  attempt_number: number;
  outcome: string;
  error_class: string | null;
  latency_ms: number | null;
}

const attemptsOfTask = (taskPrefix: string) =>
  database.sql<AttemptRow[]>`
    select task_id, agent, step, attempt_number, outcome, error_class, latency_ms from attempts
    where task_id like ${`${taskPrefix}%`} order by attempt_number`;

const keysOfTask = (taskPrefix: string) =>
  database.sql<{ key: string; status: string; claim_calls: number }[]>`
    select key, status, claim_calls from idempotency_keys where task_id like ${`${taskPrefix}%`}`;

const holdsOfTask = (taskPrefix: string) =>
  database.sql<{ item_type: string; item_id: string; reason: string; owner: string; status: string }[]>`
    select h.item_type, h.item_id, h.reason, h.owner, h.status from holds h
    where h.item_id like ${`${taskPrefix}%`}
       or h.item_id in (select id::text from dead_letters where task_id like ${`${taskPrefix}%`})
    order by h.id`;

describe('the MCP gateway', () => {
  it('passes tools/list through and never guards a read-only tool', async () => {
    const gateway = await gatewayOverHttp();
    const client = await httpClient(gateway.url, 'reader-agent');

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'charge_card',
      'failing_charge',
      'flaky_charge',
      'get_balance',
      'slow_charge',
    ]);
    expect(tools.find((tool) => tool.name === 'get_balance')?.annotations).toEqual({ readOnlyHint: true });

    const first = await call(client, 'get_balance', { orderId: 'ro-1' }, { 'io.holdfast/task': 'read-1' });
    const second = await call(client, 'get_balance', { orderId: 'ro-1' }, { 'io.holdfast/task': 'read-1' });
    expect(textOf(first)).toBe('balance for ro-1: 1000');
    expect(second).toEqual(first);
    // Both went through to the server; Holdfast saw neither.
    expect(upstream.count('get_balance', 'ro-1')).toBe(2);
    expect(await database.sql`select 1 from attempts where step = 'payments:get_balance'`).toHaveLength(0);
    expect(await database.sql`select 1 from idempotency_keys where step = 'payments:get_balance'`).toHaveLength(0);
    expect(await database.sql`select 1 from task_budgets where agent = 'reader-agent'`).toHaveLength(0);
  });

  it('answers 64 concurrent identical calls with one side effect and one result', async () => {
    const gateway = await gatewayOverHttp('--max-wait-ms', '120000');
    const callers = await Promise.all(Array.from({ length: 64 }, () => httpClient(gateway.url, 'checkout-agent')));
    const meta = { 'io.holdfast/task': 'order-64' };
    const pending = callers.map((client) => call(client, 'slow_charge', { orderId: 'o-64', amountCents: 4200 }, meta));

    // The charge is under way and held open by the server until the test releases it; meanwhile every caller
    // has begun the same step at least once (Holdfast counts each begin of the key: claim_calls).
    await waitFor(
      async () =>
        upstream.count('slow_charge', 'o-64') === 1 && ((await keysOfTask('order-64/'))[0]?.claim_calls ?? 0) >= 64,
      60_000,
      'all 64 callers to reach Holdfast',
    );
    upstream.release('o-64');
    const results = await Promise.all(pending);

    expect(upstream.count('slow_charge', 'o-64')).toBe(1);
    const [charge] = upstream.effects.filter((effect) => effect.orderId === 'o-64');
    expect(results[0]).toEqual({
      content: [{ type: 'text', text: `charged o-64 slowly: charge ch_${charge!.number}` }],
    });
    for (const result of results) expect(result).toEqual(results[0]);
    const attempts = await attemptsOfTask('order-64/');
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({
      agent: 'checkout-agent',
      step: 'payments:slow_charge',
      attempt_number: 1,
      outcome: 'succeeded',
      error_class: null,
    });
    expect(attempts[0]!.latency_ms).toBeGreaterThanOrEqual(0);
    const [key] = await keysOfTask('order-64/');
    expect(key).toMatchObject({ status: 'completed' });
    expect(key!.claim_calls).toBeGreaterThanOrEqual(64);
    expect(await holdsOfTask('order-64/')).toEqual([]);
  });

  it('holds a call whose gateway was killed mid-call, and never repeats it', async () => {
    const args = gatewayArgs('--max-wait-ms', '0');
    const first = await connectStdioClient('billing-agent', args, token);
    const meta = { 'io.holdfast/task': 'order-kill' };
    const interrupted = call(first.client, 'slow_charge', { orderId: 'o-kill' }, meta).catch((error: Error) => error);

    // The server charged and has not answered; Holdfast has the attempt running.
    await waitFor(
      async () =>
        upstream.count('slow_charge', 'o-kill') === 1 &&
        (await attemptsOfTask('order-kill/')).some((attempt) => attempt.outcome === 'running'),
      30_000,
      'the call to be under way',
    );
    process.kill(first.transport.pid!, 'SIGKILL');
    expect(await interrupted).toBeInstanceOf(Error);
    await first.client.close().catch(() => {});

    const second = await connectStdioClient('billing-agent', args, token);
    clients.push(second.client);
    // While the dead gateway's claim lasts, the repeat is told to come back (the wait bound is 0 here).
    const tooSoon = await call(second.client, 'slow_charge', { orderId: 'o-kill' }, meta);
    expect(tooSoon.isError).toBe(true);
    expect(textOf(tooSoon)).toMatch(/^try again in \d+ s: .*KEY_IN_PROGRESS/);
    expect(tooSoon._meta?.['io.holdfast/retryAfterMs']).toBeGreaterThan(0);

    // Time is an input: the claim's in-progress expiry is moved into the past, as if its TTL had run out.
    await database.sql`
      update idempotency_keys set locked_until = now() - interval '1 second'
      where task_id like 'order-kill/%' and status = 'in_progress'`;
    const repeat = await call(second.client, 'slow_charge', { orderId: 'o-kill' }, meta);
    expect(repeat.isError).toBe(true);
    expect(textOf(repeat)).toMatch(/^do not retry: .*\(UNCERTAIN_OUTCOME, uncertain_outcome\)/);
    expect(textOf(repeat)).toContain(OWNER);

    const [key] = await keysOfTask('order-kill/');
    expect(await holdsOfTask('order-kill/')).toEqual([
      { item_type: 'key', item_id: key!.key, reason: 'uncertain_outcome', owner: OWNER, status: 'open' },
    ]);
    // Released now, the first call's server side ends; the charge happened once, and was never made again.
    upstream.release('o-kill');
    expect(upstream.count('slow_charge', 'o-kill')).toBe(1);
    const attempts = await attemptsOfTask('order-kill/');
    expect(attempts.map((attempt) => [attempt.agent, attempt.attempt_number, attempt.outcome])).toEqual([
      ['billing-agent', 1, 'running'],
    ]);
  });

  it('refuses bad _meta with a tool error and records nothing', async () => {
    const gateway = await gatewayOverHttp();
    const client = await httpClient(gateway.url, 'meta-agent');
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ 'io.holdfast/key': 42 }, /"io\.holdfast\/key" must be a string, not number/],
      [{ 'io.holdfast/key': 'k'.repeat(151) }, /"io\.holdfast\/key" must be at most 150 characters/],
      [{ 'io.holdfast/task': 'order 7' }, /"io\.holdfast\/task" may contain only letters/],
      [{ 'io.holdfast/task': '' }, /"io\.holdfast\/task" must not be empty/],
      [{ 'io.holdfast/taks': 'order-7' }, /"io\.holdfast\/taks" is not a field of the gateway/],
      [{ 'io.holdfast/task': 'raw:order-7' }, /must not start with raw:/],
    ];
    for (const [meta, problem] of bad) {
      const result = await call(client, 'charge_card', { orderId: 'o-bad', amountCents: 100 }, meta);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^Holdfast gateway refused the call: _meta /);
      expect(textOf(result)).toMatch(problem);
      expect(textOf(result)).toContain('The tool was not called and nothing was recorded.');
    }
    expect(upstream.count('charge_card', 'o-bad')).toBe(0);
    expect(await database.sql`select 1 from task_budgets where agent = 'meta-agent'`).toHaveLength(0);
    expect(await database.sql`select 1 from attempts where agent = 'meta-agent'`).toHaveLength(0);
    expect(await database.sql`select 1 from idempotency_keys where agent = 'meta-agent'`).toHaveLength(0);
  });

  it('answers a stop as a tool error that begins "do not retry"', async () => {
    const gateway = await gatewayOverHttp();
    const client = await httpClient(gateway.url, 'refund-agent');

    // A permanent tool error: Holdfast never retries it, dead-letters the call's task and holds it for the owner.
    const declined = await call(
      client,
      'failing_charge',
      { orderId: 'o-declined', message: 'HTTP 400: card declined' },
      { 'io.holdfast/task': 'order-declined' },
    );
    expect(declined.isError).toBe(true);
    expect(declined.content[0]).toMatchObject({
      type: 'text',
      text: expect.stringMatching(/^do not retry: .*\(DO_NOT_RETRY, permanent_error\)/),
    });
    expect(declined.content[1]).toEqual({ type: 'text', text: 'HTTP 400: card declined' });
    expect(textOf(declined)).toContain(OWNER);
    expect(
      (await attemptsOfTask('order-declined/')).map((attempt) => [
        attempt.attempt_number,
        attempt.outcome,
        attempt.error_class,
      ]),
    ).toEqual([[1, 'failed', 'permanent']]);
    expect((await holdsOfTask('order-declined/')).map((hold) => [hold.reason, hold.owner])).toEqual([
      ['permanent_error', OWNER],
    ]);

    // One key, two different argument sets: an explicit mismatch, never a silent replay of the first.
    const key = { 'io.holdfast/key': 'refund-77' };
    const refunded = await call(client, 'charge_card', { orderId: 'o-77', amountCents: 500 }, key);
    expect(refunded.isError).toBeFalsy();
    const changed = await call(client, 'charge_card', { orderId: 'o-77', amountCents: 900 }, key);
    expect(textOf(changed)).toMatch(/^do not retry: .*\(KEY_PAYLOAD_MISMATCH, payload_mismatch\)/);
    expect(upstream.count('charge_card', 'o-77')).toBe(1);
  });
});
