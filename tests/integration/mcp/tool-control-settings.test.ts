import { describe, expect, it } from 'vitest';
import {
  deleteMcpToolControl,
  readMcpToolControls,
  saveMcpToolControl,
} from '../../../packages/engine/src/core/mcp/tool-controls';
import { recordMcpGatewayReport } from '../../../packages/engine/src/core/mcp/gateway-report';
import { admin, anAgent, oncall } from '../../support/actors';
import { useTestDatabase } from '../../support/test-database';

/**
 * The console's controls for the tools of MCP servers (packages/engine/src/core/mcp/tool-controls.ts): admins only,
 * validated where they enter, audited in the same transaction, and handed to the gateways of that server alone with
 * their reports' answers.
 */
const database = useTestDatabase();
const asAdmin = () => ({ db: database.db, actor: admin });

async function auditOf(target: string) {
  return database.sql<{ action: string; reason: string; before: unknown; after: unknown }[]>`
    select action, reason, before, after from audit_log where target_type = 'mcp_tool_control' and target_id = ${target}
    order by id`;
}

describe('MCP tool controls set in the console', () => {
  it('saves, changes and removes a control, each audited with what it was and became; the same save writes nothing', async () => {
    const control = { server: 'search', tool: 'web_search', priceUsd: 0.02, rateCalls: 30, ratePer: 'm' as const };
    expect(await saveMcpToolControl(asAdmin(), { ...control, reason: 'vendor price' })).toEqual({
      changed: true,
      created: true,
    });
    expect(await saveMcpToolControl(asAdmin(), { ...control, reason: 'again' })).toEqual({
      changed: false,
      created: false,
    });
    await saveMcpToolControl(asAdmin(), { ...control, rateCalls: null, maxIdenticalCalls: 0, reason: 'no rate' });
    const [stored] = await readMcpToolControls(database.db, 'search');
    expect(stored).toMatchObject({
      tool: 'web_search',
      priceMicros: 20_000,
      rateLimit: null,
      maxIdenticalCalls: 0,
      updatedBy: 'person:ada@example.com',
    });
    expect(await deleteMcpToolControl(asAdmin(), { server: 'search', tool: 'web_search', reason: 'done' })).toEqual({
      changed: true,
    });
    expect(await deleteMcpToolControl(asAdmin(), { server: 'search', tool: 'web_search', reason: 'done' })).toEqual({
      changed: false,
    });
    expect(await readMcpToolControls(database.db, 'search')).toEqual([]);
    expect(await auditOf('search/web_search')).toEqual([
      {
        action: 'mcp_tool_control.save',
        reason: 'vendor price',
        before: null,
        after: { priceMicros: 20_000, rateLimit: { calls: 30, periodMs: 60_000 }, maxIdenticalCalls: null },
      },
      {
        action: 'mcp_tool_control.save',
        reason: 'no rate',
        before: { priceMicros: 20_000, rateLimit: { calls: 30, periodMs: 60_000 }, maxIdenticalCalls: null },
        after: { priceMicros: 20_000, rateLimit: null, maxIdenticalCalls: 0 },
      },
      {
        action: 'mcp_tool_control.delete',
        reason: 'done',
        before: { priceMicros: 20_000, rateLimit: null, maxIdenticalCalls: 0 },
        after: null,
      },
    ]);
  });

  it('is an admin act: a responder is refused and nothing is written', async () => {
    await expect(
      saveMcpToolControl({ db: database.db, actor: oncall }, { server: 's', tool: 't', priceUsd: 1, reason: 'x' }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(await readMcpToolControls(database.db, 's')).toEqual([]);
  });

  it('refuses what it cannot enforce, naming the field', async () => {
    const refused = async (input: Record<string, unknown>) => {
      const error = await saveMcpToolControl(asAdmin(), {
        server: 'search',
        tool: 'web_search',
        reason: 'r',
        ...input,
      } as never).catch((caught: { fieldErrors?: Record<string, string[]> }) => caught);
      return Object.keys((error as { fieldErrors?: Record<string, string[]> }).fieldErrors ?? {});
    };
    expect(await refused({})).toEqual(['priceUsd']); // sets nothing
    expect(await refused({ priceUsd: -1 })).toEqual(['priceUsd']);
    expect(await refused({ rateCalls: 1.5 })).toEqual(['rateCalls']);
    expect(await refused({ rateCalls: 5, ratePer: 'd' })).toEqual(['ratePer']);
    expect(await refused({ maxIdenticalCalls: 10_001 })).toEqual(['maxIdenticalCalls']);
    expect(await refused({ server: 'a:b', priceUsd: 1 })).toEqual(['server']);
    expect(await refused({ tool: 'x'.repeat(201), priceUsd: 1 })).toEqual(['tool']);
    expect(await refused({ priceUsd: 1, reason: ' ' })).toEqual(['reason']);
    expect(await refused({ allAgentsRateCalls: 0 })).toEqual(['allAgentsRateCalls']);
    expect(await refused({ spendLimitUsd: 0 })).toEqual(['spendLimitUsd']);
    expect(await refused({ spendLimitUsd: 1, spendLimitPer: 's' })).toEqual(['spendLimitPer']);
    expect(await refused({ unitPriceUsd: 0.01 })).toEqual(['unitField']);
    expect(await refused({ unitPriceUsd: 0.01, unitField: 'not a field' })).toEqual(['unitField']);
    expect(await readMcpToolControls(database.db, 'search')).toEqual([]);
  });

  it('keeps a rate for all agents, a spend limit and a price per unit, audited, and sends each only when set', async () => {
    await saveMcpToolControl(asAdmin(), {
      ...{ server: 'sms', tool: 'send_sms', unitPriceUsd: 0.0079, unitField: 'segments' },
      ...{ allAgentsRateCalls: 100, allAgentsRatePer: 'h', spendLimitUsd: 0.5, spendLimitPer: 'h' },
      reason: 'the provider bills per segment and allows 100 an hour',
    });
    await saveMcpToolControl(asAdmin(), {
      server: 'sms',
      tool: '*',
      priceUsd: 0.001,
      reason: 'a call costs a tenth of a cent',
    });
    const controls = await readMcpToolControls(database.db, 'sms');
    expect(controls.map(({ updatedAt: _at, updatedBy: _by, ...control }) => control)).toEqual([
      { server: 'sms', tool: '*', priceMicros: 1_000, rateLimit: null, maxIdenticalCalls: null },
      {
        server: 'sms',
        tool: 'send_sms',
        priceMicros: null,
        rateLimit: null,
        maxIdenticalCalls: null,
        allAgentsRateLimit: { calls: 100, periodMs: 3_600_000 },
        spendLimit: { micros: 500_000, periodMs: 3_600_000 },
        unitPrice: { micros: 7_900, field: 'segments' },
      },
    ]);
    const [audited] = await database.sql<{ after: Record<string, unknown> }[]>`
      select after from audit_log where action = 'mcp_tool_control.save' and target_id = 'sms/send_sms'`;
    expect(audited!.after).toMatchObject({
      allAgentsRateLimit: { calls: 100, periodMs: 3_600_000 },
      spendLimit: { micros: 500_000, periodMs: 3_600_000 },
      unitPrice: { micros: 7_900, field: 'segments' },
    });
  });

  it("answers a gateway's report with its own server's controls only", async () => {
    await saveMcpToolControl(asAdmin(), { server: 'mail', tool: '*', maxIdenticalCalls: 3, reason: 'loops' });
    await saveMcpToolControl(asAdmin(), { server: 'mail', tool: 'send', priceUsd: 0.001, reason: 'postage' });
    await saveMcpToolControl(asAdmin(), { server: 'chat', tool: 'send', priceUsd: 9, reason: 'other server' });
    const answer = await recordMcpGatewayReport(
      { db: database.db, actor: anAgent('mail-gateway') },
      {
        instanceId: '00000000-0000-4000-8000-000000000001',
        serverName: 'mail',
        version: '0.1.0',
        startedAt: new Date().toISOString(),
        config: {},
        counts: [],
      },
    );
    expect(answer.controls).toEqual([
      { tool: '*', priceMicros: null, rateLimit: null, maxIdenticalCalls: 3 },
      { tool: 'send', priceMicros: 1_000, rateLimit: null, maxIdenticalCalls: null },
    ]);
  });
});
