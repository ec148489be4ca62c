import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { breakerEventsOf, useBreakerSettings } from '../../support/breakers';
import { callTool, textOfResult, useInProcessGateways } from '../../support/mcp-in-process-gateway';
import { useTestDatabase } from '../../support/test-database';
import { admin } from '../../support/actors';
import { deleteMcpToolControl, saveMcpToolControl } from '../../../packages/engine/src/core/mcp/tool-controls';
import { saveSpendBudget } from '../../../packages/engine/src/core/budgets/spend-budgets';

/**
 * The gateway's per-tool controls (packages/client/src/adapters/mcp/call-limits.ts and the tool's price and
 * downstream in gateway.ts): a price per call counted as the attempt's cost and the task's spend; a rate per tool
 * and agent, and per session, under 16 concurrent clients; a cap on identical calls in one session; a breaker for
 * the server that opens when its tools keep failing and closes on a probe. Against a real Holdfast and a real
 * upstream MCP server counting its side effects.
 */
const require = createRequire(import.meta.url);
const database = useTestDatabase();
const OWNER = 'team:payments';
const gateways = useInProcessGateways(database, OWNER, [
  'priced-agent',
  'rated-agent',
  'session-agent',
  'looping-agent',
  'breaker-agent',
  'filesystem-agent',
  'consoled-agent',
  'budgeted-agent',
  'unit-agent',
  'tool-rated-a',
  'tool-rated-b',
  'spend-agent',
  'tool-breaker-agent',
  'ceiling-agent',
]);
// Breakers that open at half failing from two attempts (tests/support/breakers.ts).
useBreakerSettings(database, 2);

describe("a tool's controls at the gateway", () => {
  it("counts the tool's price as the call's cost, in the task's spend", async () => {
    const client = await gateways.connect('priced-agent', '--tool-price', 'charge_card=0.0025');
    await callTool(client, 'charge_card', { orderId: 'o-priced' }, { 'io.holdfast/key': 'priced-1' });
    const [row] = await database.sql<{ cost_micros: number; spend_micros: number }[]>`
      select a.cost_micros::int, t.spend_micros::int from attempts a join task_budgets t using (task_id)
      where a.agent = 'priced-agent'`;
    expect(row).toEqual({ cost_micros: 2_500, spend_micros: 2_500 });
  });

  it("refuses, before the tool is called, a call whose price its task's spend ceiling cannot hold", async () => {
    // Each call is a task of its own, with the default ceiling of $5: a $6 call cannot begin under it.
    const client = await gateways.connect('ceiling-agent', '--tool-price', 'charge_card=6');
    const answer = await callTool(client, 'charge_card', { orderId: 'o-ceiling' }, { 'io.holdfast/key': 'ceiling-1' });
    expect(answer.isError).toBe(true);
    expect(textOfResult(answer)).toMatch(/^do not retry: .*spend/);
    expect(gateways.upstream.count('charge_card', 'o-ceiling')).toBe(0);
  });

  it("prices each unit its result counts beside its price per call (an SMS's segments), in the task's spend", async () => {
    const client = await gateways.connect(
      'unit-agent',
      '--tool-price',
      'send_sms=0.001',
      '--tool-unit-price',
      'send_sms=0.0079:segments',
    );
    // 200 characters: two segments of 160.
    await callTool(client, 'send_sms', { orderId: 'o-unit', text: 'x'.repeat(200) }, { 'io.holdfast/key': 'unit-1' });
    const [row] = await database.sql<{ cost_micros: number; spend_micros: number }[]>`
      select a.cost_micros::int, t.spend_micros::int from attempts a join task_budgets t using (task_id)
      where a.agent = 'unit-agent'`;
    expect(row).toEqual({ cost_micros: 1_000 + 2 * 7_900, spend_micros: 1_000 + 2 * 7_900 });
  });

  it('lets exactly the rate of a tool through for all agents together, 16 concurrent clients of two agents', async () => {
    const gateway = await gateways.start('--tool-rate-limit', 'charge_card=4/h');
    const clients = await Promise.all(
      Array.from({ length: 16 }, (_, index) => gateway.connect(index % 2 === 0 ? 'tool-rated-a' : 'tool-rated-b')),
    );
    const results = await Promise.all(
      clients.map((client, index) =>
        callTool(client, 'charge_card', { orderId: `o-all-${index}` }, { 'io.holdfast/key': `all-${index}` }),
      ),
    );
    const limited = results.filter((result) => textOfResult(result).includes('rate limited'));
    expect(results.length - limited.length).toBe(4);
    for (const result of limited) {
      expect(textOfResult(result)).toMatch(/rate limited, charge_card allows 4 calls an hour for all agents\./);
    }
    expect(gateways.upstream.effects.filter((effect) => effect.orderId.startsWith('o-all-'))).toHaveLength(4);
  });

  it("stops an agent's calls of a tool once they have cost its spend limit, and says when to come back", async () => {
    const gateway = await gateways.start('--tool-price', 'charge_card=0.01', '--spend-limit', 'charge_card=0.03/h');
    const client = await gateway.connect('spend-agent');
    const answers = [];
    for (const order of [1, 2, 3, 4]) {
      answers.push(
        await callTool(client, 'charge_card', { orderId: `o-spend-${order}` }, { 'io.holdfast/key': `spend-${order}` }),
      );
    }
    expect(answers.map((answer) => Boolean(answer.isError))).toEqual([false, false, false, true]);
    expect(textOfResult(answers[3]!)).toMatch(
      /^try again in \d+ s: rate limited, charge_card may cost \$0\.03 an hour for agent spend-agent, spent already\./,
    );
    expect(gateways.upstream.effects.filter((effect) => effect.orderId.startsWith('o-spend-'))).toHaveLength(3);
  });

  it('lets exactly the rate through for one agent across 16 concurrent clients, and says when to come back', async () => {
    const gateway = await gateways.start('--rate-limit', 'charge_card=5/h');
    const clients = await Promise.all(Array.from({ length: 16 }, () => gateway.connect('rated-agent')));
    const results = await Promise.all(
      clients.map((client, index) =>
        callTool(client, 'charge_card', { orderId: `o-rated-${index}` }, { 'io.holdfast/key': `rated-${index}` }),
      ),
    );
    const limited = results.filter((result) => textOfResult(result).includes('rate limited'));
    expect(results.length - limited.length).toBe(5);
    expect(limited).toHaveLength(11);
    for (const result of limited) {
      expect(textOfResult(result)).toMatch(
        /^try again in \d+ s: rate limited, charge_card allows 5 calls an hour for agent rated-agent\./,
      );
      expect(result._meta?.['io.holdfast/retryAfterMs']).toBeGreaterThan(0);
    }
    expect(gateways.upstream.effects.filter((effect) => effect.orderId.startsWith('o-rated-'))).toHaveLength(5);
  });

  it("keeps a session to its own rate, whatever the others' calls", async () => {
    const gateway = await gateways.start('--session-rate-limit', '2/h');
    const [first, second] = [await gateway.connect('session-agent'), await gateway.connect('session-agent')];
    const answers = [];
    for (const order of ['s-1', 's-2', 's-3']) {
      answers.push(await callTool(first, 'charge_card', { orderId: order }, { 'io.holdfast/key': `session-${order}` }));
    }
    expect(answers.map((answer) => Boolean(answer.isError))).toEqual([false, false, true]);
    expect(textOfResult(answers[2]!)).toContain('rate limited, this session allows 2 calls an hour');
    const other = await callTool(second, 'charge_card', { orderId: 's-4' }, { 'io.holdfast/key': 'session-s-4' });
    expect(other.isError).toBeFalsy();
  });

  it('stops one session calling a tool with the same arguments past the cap, 16 calls at once', async () => {
    const client = await gateways.connect('looping-agent', '--max-identical-calls', '3');
    const results = await Promise.all(
      Array.from({ length: 16 }, () => callTool(client, 'set_limit', { orderId: 'o-loop', limitCents: 100 })),
    );
    const stopped = results.filter((result) =>
      textOfResult(result).startsWith('do not retry: set_limit was already called 3 times'),
    );
    expect(stopped).toHaveLength(13);
    // The three let through ran (an idempotent tool's keyless calls always run).
    expect(gateways.upstream.count('set_limit', 'o-loop')).toBe(3);
    // Other arguments are another call.
    const other = await callTool(client, 'set_limit', { orderId: 'o-loop', limitCents: 200 });
    expect(other.isError).toBeFalsy();
  });

  it("opens the server's breaker when its tools keep failing, and closes it on a probe", async () => {
    const client = await gateways.connect('breaker-agent', '--retry-allowance', '0', '--max-wait-ms', '1000');
    const target = 'downstream:breaker-agent/mcp:payments';
    for (const key of ['fail-1', 'fail-2']) {
      const failed = await callTool(
        client,
        'failing_charge',
        { orderId: 'o-breaker', message: '503 Service Unavailable' },
        { 'io.holdfast/key': key },
      );
      expect(failed.isError).toBe(true);
    }
    expect(await breakerEventsOf(database, target)).toEqual(['opened']);
    // Another tool of the same server waits while the server's breaker rests.
    const held = await callTool(client, 'charge_card', { orderId: 'o-breaker' }, { 'io.holdfast/key': 'after-1' });
    expect(textOfResult(held)).toMatch(/^try again in \d+ s: .*\(CIRCUIT_OPEN\)/);
    expect(gateways.upstream.count('charge_card', 'o-breaker')).toBe(0);

    // Its rest is over (moved into the past rather than waited out): the next call is the probe, and it gets through.
    await database.sql`update circuit_breakers set probe_at = now() - interval '1 second' where target = ${target}`;
    const probe = await callTool(client, 'charge_card', { orderId: 'o-breaker' }, { 'io.holdfast/key': 'after-1' });
    expect(probe.isError).toBeFalsy();
    expect(gateways.upstream.count('charge_card', 'o-breaker')).toBe(1);
    expect(await breakerEventsOf(database, target)).toEqual(['opened', 'probing', 'closed']);
  });

  it("opens a tool's own breaker when it keeps failing, and closes it on a probe that succeeds", async () => {
    const client = await gateways.connect('tool-breaker-agent', '--retry-allowance', '0', '--max-wait-ms', '1000');
    // Each tool is a step (`<server>:<tool>`) with a breaker of its own, beside the server's.
    const tool = 'step:tool-breaker-agent/payments:flaky_charge';
    const server = 'downstream:tool-breaker-agent/mcp:payments';
    const flaky = (key: string) =>
      callTool(client, 'flaky_charge', { orderId: 'o-tool-breaker', failures: 2 }, { 'io.holdfast/key': key });
    for (const key of ['tool-fail-1', 'tool-fail-2']) expect((await flaky(key)).isError).toBe(true);
    expect(await breakerEventsOf(database, tool)).toEqual(['opened']);
    expect(textOfResult(await flaky('tool-held'))).toMatch(/^try again in \d+ s: .*\(CIRCUIT_OPEN\)/);

    // Both rests over: the next call probes, the tool answers this time, and its breaker closes.
    await database.sql`update circuit_breakers set probe_at = now() - interval '1 second' where target in (${tool}, ${server})`;
    const probe = await flaky('tool-probe');
    expect(probe.isError).toBeFalsy();
    expect(gateways.upstream.count('flaky_charge', 'o-tool-breaker')).toBe(1);
    expect(await breakerEventsOf(database, tool)).toEqual(['opened', 'probing', 'closed']);
  });

  it('keeps one edit per operation on disk with a real server from the registry (server-filesystem)', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'holdfast-mcp-fs-'));
    const file = path.join(folder, 'notes.txt');
    writeFileSync(file, 'x');
    try {
      const client = await gateways.connect(
        'filesystem-agent',
        '--server-name',
        'filesystem',
        '--',
        process.execPath,
        require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'),
        folder,
      );
      const edit = { path: file, edits: [{ oldText: 'x', newText: 'xx' }] };
      // The same key twice: one edit, the same answer, the second marked a replay.
      const first = await callTool(client, 'edit_file', edit, { 'io.holdfast/key': 'edit-1' });
      const second = await callTool(client, 'edit_file', edit, { 'io.holdfast/key': 'edit-1' });
      expect(first.isError).toBeFalsy();
      expect(second.content).toEqual(first.content);
      expect(second._meta?.['io.holdfast/replayed']).toBeDefined();
      expect(readFileSync(file, 'utf8')).toBe('xx');
      // The same key with other arguments: refused, the file left alone.
      const other = await callTool(
        client,
        'edit_file',
        { ...edit, edits: [{ oldText: 'xx', newText: 'y' }] },
        {
          'io.holdfast/key': 'edit-1',
        },
      );
      expect(textOfResult(other)).toMatch(/^do not retry: .*KEY_PAYLOAD_MISMATCH/);
      expect(readFileSync(file, 'utf8')).toBe('xx');
      // A read-only tool goes straight through.
      expect(textOfResult(await callTool(client, 'read_text_file', { path: file }))).toContain('xx');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('takes the controls an admin set in the console in place of its own options, from its next report', async () => {
    const { gateway, connect } = await gateways.start(
      '--server-name',
      'consoled',
      '--tool-price',
      'charge_card=0.0025',
    );
    const client = await connect('consoled-agent');
    const charge = (order: string) =>
      callTool(client, 'charge_card', { orderId: order }, { 'io.holdfast/key': `consoled-${order}` });
    await charge('o-before');
    const asAdmin = { db: database.db, actor: admin };
    await saveMcpToolControl(asAdmin, {
      ...{ server: 'consoled', tool: 'charge_card', priceUsd: 0.01, rateCalls: 2, ratePer: 'h' },
      reason: 'the vendor bills a cent, two an hour',
    });
    await saveMcpToolControl(asAdmin, { server: 'consoled', tool: '*', maxIdenticalCalls: 2, reason: 'loops' });
    // Another server's control is not this gateway's.
    await saveMcpToolControl(asAdmin, { server: 'elsewhere', tool: 'charge_card', priceUsd: 5, reason: 'other' });
    await gateway.gateway.report.send();

    const charged = await Promise.all(['o-1', 'o-2', 'o-3'].map(charge));
    expect(charged.filter((result) => textOfResult(result).includes('rate limited'))).toHaveLength(1);
    const looped = [];
    for (let call = 0; call < 3; call += 1) {
      looped.push(await callTool(client, 'set_limit', { orderId: 'o-consoled', limitCents: 5 }));
    }
    expect(textOfResult(looped[2]!)).toMatch(/^do not retry: set_limit was already called 2 times/);

    // Removed: the gateway's own price again, from the next report.
    await deleteMcpToolControl(asAdmin, { server: 'consoled', tool: 'charge_card', reason: 'contract ended' });
    await gateway.gateway.report.send();
    await charge('o-after');
    const costs = await database.sql<{ cost_micros: number }[]>`
      select cost_micros::int from attempts
      where agent = 'consoled-agent' and step like 'consoled:charge_card' order by started_at`;
    expect(costs.map((row) => row.cost_micros)).toEqual([2_500, 10_000, 10_000, 2_500]);
  });

  it("takes a console's rate for all agents, spend limit and price per unit, from its next report", async () => {
    const { gateway, connect } = await gateways.start('--server-name', 'consoled-more');
    const [first, second] = [await connect('tool-rated-a'), await connect('tool-rated-b')];
    const asAdmin = { db: database.db, actor: admin };
    await saveMcpToolControl(asAdmin, {
      ...{ server: 'consoled-more', tool: 'charge_card', allAgentsRateCalls: 3, allAgentsRatePer: 'h' },
      reason: "the vendor's quota is three an hour",
    });
    await saveMcpToolControl(asAdmin, {
      ...{ server: 'consoled-more', tool: 'send_sms', priceUsd: 0.001, unitPriceUsd: 0.0079, unitField: 'segments' },
      ...{ spendLimitUsd: 0.02, spendLimitPer: 'h' },
      reason: 'the SMS provider bills per segment; a budget an hour',
    });
    await gateway.gateway.report.send();

    // Three calls an hour of charge_card, whichever agents make them.
    const charges = [];
    for (const [index, client] of [first, second, first, second].entries()) {
      const key = { 'io.holdfast/key': `more-charge-${index}` };
      charges.push(await callTool(client!, 'charge_card', { orderId: `o-more-${index}` }, key));
    }
    expect(charges.map((result) => textOfResult(result).includes('rate limited'))).toEqual([false, false, false, true]);
    // Each SMS costs $0.001 and $0.0079 a segment: two of two segments ($0.0338) pass $0.02, the third waits.
    const texts = [];
    for (const index of [1, 2, 3]) {
      const args = { orderId: `o-more-sms-${index}`, text: 'y'.repeat(300) };
      texts.push(await callTool(first, 'send_sms', args, { 'io.holdfast/key': `more-sms-${index}` }));
    }
    expect(texts.map((result) => Boolean(result.isError))).toEqual([false, false, true]);
    expect(textOfResult(texts[2]!)).toContain('send_sms may cost $0.02 an hour for agent tool-rated-a, spent already');
    const costs = await database.sql<{ cost_micros: number }[]>`
      select cost_micros::int from attempts where step = 'consoled-more:send_sms' order by started_at`;
    expect(costs.map((row) => row.cost_micros)).toEqual([16_800, 16_800]);
  });

  it("answers a tool's call under a spent fleet budget as the model reads a wait, and under a stopping one as final", async () => {
    const asAdmin = { db: database.db, actor: admin };
    const client = await gateways.connect('budgeted-agent', '--tool-price', 'charge_card=0.01');
    const budget = {
      name: 'budgeted tools',
      scope: 'downstream' as const,
      scopeValue: 'mcp:payments',
      period: 'hour' as const,
    };
    await saveSpendBudget(asAdmin, { ...budget, limitUsd: 1, reason: 'the payments server' });
    // Made mid-hour, the budget starts from what the server's calls cost this hour (the tests above): a cent more.
    const [start] = await database.sql<{ spent: number }[]>`
      select coalesce(sum(u.spent_micros), 0)::int as spent from spend_budget_usage u
      join spend_budgets b on b.id = u.budget_id where b.name = 'budgeted tools'`;
    const limitUsd = (start!.spent + 10_000) / 1_000_000;
    await saveSpendBudget(asAdmin, { ...budget, limitUsd, reason: 'a cent more this hour' });
    const charge = (order: string) =>
      callTool(client, 'charge_card', { orderId: `budgeted-${order}` }, { 'io.holdfast/key': `budgeted-${order}` });
    expect((await charge('o-1')).isError).toBeFalsy();
    const waited = await charge('o-2');
    expect(textOfResult(waited)).toMatch(/^try again in \d+ s: .*spend budget "budgeted tools".*\(BUDGET_EXHAUSTED\)/);
    expect(waited._meta?.['io.holdfast/retryAfterMs']).toBeGreaterThan(0);
    await saveSpendBudget(asAdmin, { ...budget, limitUsd, onExhausted: 'stop', reason: 'stop instead' });
    expect(textOfResult(await charge('o-3'))).toMatch(/^do not retry: /);
    // One charge made: the two refused calls reached no server.
    expect(gateways.upstream.effects.filter((effect) => effect.orderId.startsWith('budgeted-'))).toHaveLength(1);
  });
});
