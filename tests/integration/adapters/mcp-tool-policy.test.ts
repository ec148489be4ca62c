import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { callTool, textOfResult, useInProcessGateways } from '../../support/mcp-in-process-gateway';
import { useTestDatabase } from '../../support/test-database';

/**
 * Each tool's policy through the gateway, explicit (packages/client/src/adapters/mcp/tool-policy.ts): a tool the
 * server does not list is the caller's error (-32602), arguments the tool's schema refuses a tool error, and
 * neither records anything or opens a hold; what a keyless repeat means per tool (one operation per window,
 * always run, or refuse), from annotations or the gateway's options; and a replayed result says so. Against a
 * real Holdfast, a real upstream MCP server counting its side effects, and the SDK's client.
 */
const database = useTestDatabase();
const OWNER = 'team:payments';
const gateways = useInProcessGateways(database, OWNER, [
  'reported-agent',
  'unknown-agent',
  'schema-agent',
  'refuse-agent',
  'always-agent',
  'window-agent',
]);
const clientThroughGateway = (agent: string, ...extra: string[]) => gateways.connect(agent, ...extra);
const call = callTool;
const textOf = textOfResult;
const upstream = {
  count: (tool: string, orderId?: string) => gateways.upstream.count(tool, orderId),
};

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

  it('reports what became of each call to Holdfast, with the instance and its options', async () => {
    const { gateway, connect } = await gateways.start('--server-name', 'reported', '--keyless', 'charge_card=window');
    const client = await connect('reported-agent');
    await call(client, 'charge_crad', {}).catch(() => {});
    await call(client, 'charge_card', { orderId: 7 }, { 'io.holdfast/key': 'reported-bad' });
    await call(client, 'charge_card', { orderId: 'o-reported' }, { 'io.holdfast/key': 'reported-1' });
    await call(client, 'charge_card', { orderId: 'o-reported' }, { 'io.holdfast/key': 'reported-1' });
    await call(client, 'get_balance', { orderId: 'o-reported' });
    await gateway.gateway.report.send();

    const counts = await database.sql<{ tool: string; outcome: string; calls: number }[]>`
      select tool, outcome, calls::int from mcp_tool_counts where server_name = 'reported' order by tool, outcome`;
    expect(counts).toEqual([
      { tool: 'charge_card', outcome: 'ran', calls: 1 },
      { tool: 'charge_card', outcome: 'refused_arguments', calls: 1 },
      { tool: 'charge_card', outcome: 'replayed', calls: 1 },
      { tool: 'charge_crad', outcome: 'refused_unknown_tool', calls: 1 },
      { tool: 'get_balance', outcome: 'passed_through', calls: 1 },
    ]);
    const [instance] = await database.sql<{ version: string; keyless: string; reported_by: string }[]>`
      select version, config->>'keyless' as keyless, reported_by from mcp_gateway_instances
      where instance_id = ${gateway.gateway.report.instanceId}`;
    expect(instance).toMatchObject({ version: '0.1.0', keyless: 'charge_card=window' });
    // Sent once: a report with nothing new adds nothing.
    await gateway.gateway.report.send();
    const [again] = await database.sql<{ calls: number }[]>`
      select sum(calls)::int as calls from mcp_tool_counts where server_name = 'reported'`;
    expect(again).toEqual({ calls: 5 });
  });
});
