import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryPools } from '../../../packages/engine/src/db/schema';
import { identifyCall, stepNameOf } from '../../../packages/client/src/adapters/mcp/call-identity';
import { hashContent } from '@holdfast/protocol/keys/derive-key';
import { waitFor } from '../../../scripts/ci/faults/killable-postgres';
import { demoServerEnv, type HoldfastServer, startHoldfastServer } from '../../support/holdfast-server';
import { addKnownOwners } from '../../support/known-owners';
import {
  connectHttpClient,
  connectStdioClient,
  type GatewayProcess,
  startGatewayProcess,
  TEST_KEY_SECRET,
  type TestClient,
  testClient,
  writeClientsFile,
} from '../../support/mcp-gateway-process';
import { startTestMcpServer, type TestMcpServer } from '../../support/mcp-test-server';
import { useTestDatabase } from '../../support/test-database';
import { issueToken } from '../../support/api-tokens';

/**
 * The MCP gateway (packages/client/src/adapters/mcp) between a real MCP server written with
 * the SDK (tests/support/mcp-test-server.ts, counting its side effects) and
 * real MCP clients (the SDK's Client), against a running Holdfast (the
 * production server): the gateway runs as its CLI, in its own process, so it
 * can be killed. Every figure is read from the upstream server's own count
 * and from the database.
 */
const database = useTestDatabase();
const DAY_MS = 86_400_000;
const OWNER = 'team:payments';
let holdfast: HoldfastServer;
let token: string;
let upstream: TestMcpServer;
const gateways: GatewayProcess[] = [];
const clients: Client[] = [];

/** A scratch folder for the stdio server's count of side effects, and the gateways' clients file. */
const scratch = mkdtempSync(path.join(tmpdir(), 'holdfast-mcp-'));
/** Every client of the listening gateways below: one per agent, each with its own secret. */
const CLIENTS = [
  'reader-agent',
  'checkout-agent',
  'meta-agent',
  'refund-agent',
  'ledger-agent',
  'retry-agent',
  'keyed-agent',
  'class-agent',
].map((agent) => testClient(agent));
const clientsFile = writeClientsFile(path.join(scratch, 'clients.json'), CLIENTS);
const clientOf = (agent: string): TestClient => CLIENTS.find((client) => client.agent === agent)!;

/** The gateway's own options: this Holdfast, the server's name in steps and keys, the owner of its holds. */
const holdfastArgs = () => ['--holdfast-url', holdfast.baseUrl, '--server-name', 'payments', '--owner', OWNER];
/** A listening gateway's arguments in front of the test server (Streamable HTTP), with `extra` options. */
const gatewayArgs = (...extra: string[]) => [
  ...holdfastArgs(),
  '--clients',
  clientsFile.file,
  '--upstream-url',
  upstream.url,
  ...extra,
];

beforeAll(async () => {
  await addKnownOwners(database.db, [OWNER]);
  // The step endpoints (begin, finish) and opening a hold are the ingest scope's (packages/engine/src/core/identity/authorization.ts).
  ({ token } = await issueToken(database.db, { name: 'mcp gateway test' }));
  upstream = await startTestMcpServer();
  holdfast = await startHoldfastServer({ env: demoServerEnv(database) });
}, 300_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
  await Promise.all(gateways.map((gateway) => gateway.stop()));
  await upstream?.close();
  await holdfast?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function gatewayOverHttp(...extra: string[]): Promise<GatewayProcess> {
  const gateway = await startGatewayProcess(gatewayArgs(...extra), token, clientsFile.env);
  gateways.push(gateway);
  return gateway;
}

/** A client with `agent`'s credential, which also calls itself that in its initialize. */
async function httpClient(url: string, agent: string): Promise<Client> {
  const client = await connectHttpClient(url, agent, clientOf(agent).secret);
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
      'send_sms',
      'set_limit',
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
    // One caller ran it and gets the server's answer as it is; the 63 others get the same content, marked as a
    // replay of that one run, with when it ran.
    const ran = results.filter((result) => result._meta?.['io.holdfast/replayed'] === undefined);
    expect(ran).toEqual([{ content: [{ type: 'text', text: `charged o-64 slowly: charge ch_${charge!.number}` }] }]);
    const replays = results.filter((result) => result._meta?.['io.holdfast/replayed'] !== undefined);
    expect(replays).toHaveLength(63);
    const firstRunAt = (replays[0]!._meta!['io.holdfast/replayed'] as { firstRunAt: string }).firstRunAt;
    expect(Date.parse(firstRunAt)).toBeGreaterThan(Date.now() - 10 * 60_000);
    for (const replay of replays) {
      expect(replay).toEqual({ ...ran[0], _meta: { 'io.holdfast/replayed': { firstRunAt } } });
    }
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
    // Over stdio the agent is the gateway's --agent (the client's own name is never taken for it).
    const args = [...holdfastArgs(), '--agent', 'billing-agent', '--upstream-url', upstream.url, '--max-wait-ms', '0'];
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

  it('holds a call whose stdio server died before answering, and starts the server again for the next call', async () => {
    const effectsFile = path.join(scratch, 'stdio-effects.txt');
    writeFileSync(effectsFile, '');
    const effects = () => readFileSync(effectsFile, 'utf8').split('\n').filter(Boolean);
    const server = [process.execPath, '--import', 'tsx', 'tests/support/mcp-stdio-server.ts', effectsFile];
    const gateway = await startGatewayProcess(
      [...holdfastArgs(), '--clients', clientsFile.file, '--', ...server],
      token,
      clientsFile.env,
    );
    gateways.push(gateway);
    const client = await httpClient(gateway.url, 'ledger-agent');
    const meta = { 'io.holdfast/task': 'order-die' };

    // The server charges, then dies before it answers: the gateway cannot know whether the charge happened.
    const lost = await call(client, 'charge_then_die', { orderId: 'o-die' }, meta);
    expect(lost.isError).toBe(true);
    expect(textOf(lost)).toMatch(/^do not retry: charge_then_die was sent to payments but its answer was lost/);
    expect(textOf(lost)).toContain(`${OWNER} checks it`);
    const [key] = await keysOfTask('order-die/');
    // The hold is opened at once, for the owner; the attempt is left running, so Holdfast never grants a retry.
    expect(await holdsOfTask('order-die/')).toEqual([
      { item_type: 'key', item_id: key!.key, reason: 'uncertain_outcome', owner: OWNER, status: 'open' },
    ]);
    expect(key!.status).toBe('in_progress');
    expect((await attemptsOfTask('order-die/')).map((attempt) => attempt.outcome)).toEqual(['running']);

    // The next call starts the server again.
    const next = await call(client, 'charge_card', { orderId: 'o-next' }, { 'io.holdfast/task': 'order-next' });
    expect(textOf(next)).toBe('charged o-next');

    // Once the claim has run out (moved into the past here), the repeat is held, never sent again: same hold.
    await database.sql`
      update idempotency_keys set locked_until = now() - interval '1 second'
      where task_id like 'order-die/%' and status = 'in_progress'`;
    const repeat = await call(client, 'charge_then_die', { orderId: 'o-die' }, meta);
    expect(textOf(repeat)).toMatch(/^do not retry: .*\(UNCERTAIN_OUTCOME, uncertain_outcome\)/);
    expect(await holdsOfTask('order-die/')).toHaveLength(1);
    expect(effects()).toEqual(['charge_then_die o-die', 'charge_card o-next']);
  });

  it("retries a transient tool error when Holdfast says so, and waits for a tool's empty retry pool", async () => {
    // The wait bound counts from the call's start, the first attempt's own time included: 2 s left a loaded machine
    // too little room for a 1 s backoff after it. The empty pool below asks for longer than this bound anyway.
    const gateway = await gatewayOverHttp('--max-wait-ms', '10000');
    const client = await httpClient(gateway.url, 'retry-agent');

    // 503 once, then a charge: Holdfast grants the retry, the gateway makes it after the backoff.
    const meta = { 'io.holdfast/task': 'order-flaky' };
    const charged = await call(client, 'flaky_charge', { orderId: 'o-flaky', failures: 1 }, meta);
    expect(textOf(charged)).toMatch(/^charged o-flaky: charge ch_\d+$/);
    // The repeat replays the charge, marked as a replay.
    const repeated = await call(client, 'flaky_charge', { orderId: 'o-flaky', failures: 1 }, meta);
    expect(repeated).toEqual({ ...charged, _meta: { 'io.holdfast/replayed': { firstRunAt: expect.any(String) } } });
    expect(upstream.count('flaky_charge', 'o-flaky')).toBe(1);
    expect(
      (await attemptsOfTask('order-flaky/')).map((attempt) => [
        attempt.step,
        attempt.attempt_number,
        attempt.outcome,
        attempt.error_class,
      ]),
    ).toEqual([
      ['payments:flaky_charge', 1, 'failed', 'transient'],
      ['payments:flaky_charge', 2, 'succeeded', null],
    ]);

    // A retry pool for this agent and tool that allows no retries: the retry waits (never a stop) and the caller
    // is told when to come back; once the pool has room the same call goes through.
    await database.db.insert(retryPools).values({
      agent: 'retry-agent',
      step: 'payments:flaky_charge',
      budgetPercent: 0,
      minRetriesPerSecond: 0,
      windowSeconds: 60,
      updatedBy: 'person:admin@example.com',
    });
    const pooledMeta = { 'io.holdfast/task': 'order-pooled' };
    const pooled = await call(client, 'flaky_charge', { orderId: 'o-pooled', failures: 1 }, pooledMeta);
    expect(pooled.isError).toBe(true);
    expect(textOf(pooled)).toMatch(
      /^try again in \d+ s: The retry pool of step retry-agent\/payments:flaky_charge is empty/,
    );
    expect(textOf(pooled)).toContain('(RETRY_BUDGET_EXHAUSTED)');
    await database.sql`delete from retry_pools where agent = 'retry-agent'`;
    const later = await call(client, 'flaky_charge', { orderId: 'o-pooled', failures: 1 }, pooledMeta);
    expect(textOf(later)).toMatch(/^charged o-pooled/);
    expect((await attemptsOfTask('order-pooled/')).map((attempt) => attempt.outcome)).toEqual(['failed', 'succeeded']);
  });

  it('keys a call by its explicit key, or by its content inside the deduplication window', async () => {
    // A day's window: the two calls below fall into one unless they straddle midnight UTC (where the window
    // starts are shown by the clock-driven check of identifyCall below).
    const gateway = await gatewayOverHttp('--dedup-window-ms', String(DAY_MS));
    const client = await httpClient(gateway.url, 'keyed-agent');

    // No key and no task: identical calls inside the window are one operation.
    const first = await call(client, 'charge_card', { orderId: 'o-window', amountCents: 100 });
    const repeat = await call(client, 'charge_card', { amountCents: 100, orderId: 'o-window' });
    expect(repeat.content).toEqual(first.content);
    expect(repeat._meta?.['io.holdfast/replayed']).toEqual({ firstRunAt: expect.any(String) });
    expect(upstream.count('charge_card', 'o-window')).toBe(1);
    const [windowTask] = await database.sql<{ task_id: string }[]>`
      select task_id from task_budgets where agent = 'keyed-agent'`;
    expect(windowTask!.task_id).toMatch(/^mcp:window:keyed-agent:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ:[0-9a-f]{24}$/);

    // An explicit key names the operation: the same key replays, a new key is a new charge.
    const keyed = await call(
      client,
      'charge_card',
      { orderId: 'o-key', amountCents: 100 },
      { 'io.holdfast/key': 'pay-1' },
    );
    expect(
      (await call(client, 'charge_card', { orderId: 'o-key', amountCents: 100 }, { 'io.holdfast/key': 'pay-1' }))
        .content,
    ).toEqual(keyed.content);
    const again = await call(
      client,
      'charge_card',
      { orderId: 'o-key', amountCents: 100 },
      { 'io.holdfast/key': 'pay-2' },
    );
    expect(again).not.toEqual(keyed);
    expect(upstream.count('charge_card', 'o-key')).toBe(2);
    expect(
      (
        await database.sql<{ key: string }[]>`
        select key from idempotency_keys where agent = 'keyed-agent' and task_id like 'mcp:key:%' order by key`
      ).map((row) => row.key),
    ).toEqual([
      expect.stringMatching(/^mcp:key:pay-1:[0-9a-f]{24}\/payments:charge_card$/),
      expect.stringMatching(/^mcp:key:pay-2:[0-9a-f]{24}\/payments:charge_card$/),
    ]);
  });

  it('classes a tool error by its text', async () => {
    // No retries at all, so every failure is decided at once and its class read from the attempt.
    const gateway = await gatewayOverHttp('--retry-allowance', '0');
    const client = await httpClient(gateway.url, 'class-agent');
    const messages: [string, string][] = [
      ['HTTP 429 Too Many Requests', 'rate_limited'],
      ['status: 503', 'transient'],
      ['the ledger timed out after 30 s', 'timeout'],
      ['the ledger is temporarily unavailable', 'transient'],
      ['invalid card number', 'permanent'],
      ['something odd happened', 'unknown'],
    ];
    for (const [index, [message]] of messages.entries()) {
      const result = await call(
        client,
        'failing_charge',
        { orderId: `o-class-${index}`, message },
        { 'io.holdfast/task': `classes-${index}` },
      );
      expect(textOf(result)).toMatch(/^do not retry: /);
      expect(textOf(result)).toContain(message);
    }
    const classes = await database.sql<{ task_id: string; error_class: string }[]>`
      select task_id, error_class from attempts where agent = 'class-agent' order by task_id`;
    expect(classes.map((row) => row.error_class)).toEqual(messages.map(([, errorClass]) => errorClass));
  });

  it('derives the same task for the same call, and a new one for new arguments, a new task or a new window', () => {
    const windowMs = 300_000;
    const start = Date.UTC(2026, 0, 5, 10, 0, 0);
    const charge = (
      args: Record<string, unknown>,
      meta = {},
      nowMs = start,
      agent = 'a1',
      keySecret = TEST_KEY_SECRET,
    ) =>
      identifyCall({
        server: 'payments',
        tool: 'charge_card',
        arguments: args,
        meta,
        agent,
        keySecret,
        windowMs,
        nowMs,
      });

    const window = charge({ orderId: 'o-1', amountCents: 5 });
    expect(window).toMatchObject({ step: 'payments:charge_card', derivedFrom: 'window' });
    expect(window.taskId).toMatch(/^mcp:window:a1:2026-01-05T10:00:00Z:[0-9a-f]{24}$/);
    // Key order does not matter; the last millisecond of the window is still the window; the next is not.
    expect(charge({ amountCents: 5, orderId: 'o-1' }, {}, start + windowMs - 1).taskId).toBe(window.taskId);
    expect(charge({ orderId: 'o-1', amountCents: 5 }, {}, start + windowMs).taskId).toMatch(
      /^mcp:window:a1:2026-01-05T10:05:00Z:/,
    );
    expect(charge({ orderId: 'o-1', amountCents: 6 }).taskId).not.toBe(window.taskId);

    // A task: the same call in it is one operation whenever it comes; other arguments are another.
    const inTask = charge({ orderId: 'o-1' }, { task: 'order-1' });
    expect(inTask.taskId).toMatch(/^order-1\/mcp-[0-9a-f]{24}$/);
    expect(charge({ orderId: 'o-1' }, { task: 'order-1' }, start + 10 * DAY_MS).taskId).toBe(inTask.taskId);
    expect(charge({ orderId: 'o-2' }, { task: 'order-1' }).taskId).not.toBe(inTask.taskId);
    // A key: the client named the operation; the arguments are its content, guarded by Holdfast.
    const keyed = charge({ orderId: 'o-1' }, { key: 'k-9', task: 'order-1' });
    expect(keyed).toMatchObject({
      taskId: expect.stringMatching(/^mcp:key:k-9:[0-9a-f]{24}$/),
      content: { server: 'payments', tool: 'charge_card', arguments: { orderId: 'o-1' } },
      derivedFrom: 'key',
    });
    // Every id is sealed with the agent and the gateway's secret: another agent's same call is another task, and
    // without the secret no one can work an id out (it is not the SHA-256 of the arguments).
    for (const [meta, own] of [
      [{}, window],
      [{ task: 'order-1' }, inTask],
      [{ key: 'k-9' }, keyed],
    ] as const) {
      const args = own === window ? { orderId: 'o-1', amountCents: 5 } : { orderId: 'o-1' };
      expect(charge(args, meta, start, 'a2').taskId).not.toBe(own.taskId);
      expect(charge(args, meta, start, 'a1', 'another-secret-0123456789abcdef0123').taskId).not.toBe(own.taskId);
      expect(own.taskId).not.toContain(hashContent(own.content).slice(0, 16));
    }

    // Tool names become step names: other characters as _, a long one cut with a hash that keeps two apart.
    expect(stepNameOf('payments', 'refunds/create v2')).toBe('payments:refunds_create_v2');
    const long = stepNameOf('payments', 'x'.repeat(120));
    expect(long).toHaveLength(100);
    expect(stepNameOf('payments', `${'x'.repeat(119)}y`)).not.toBe(long);
  });
});
