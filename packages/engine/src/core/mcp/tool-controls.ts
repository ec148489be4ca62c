import { sql } from 'drizzle-orm';
import type { Executor, Transaction } from '../../db/client';
import { writeAudit } from '../audit/audit-log';
import { authorize } from '../identity/authorization';
import { actorLabel, type CoreContext } from '../kernel/context';
import { parseInput } from '@holdfast/protocol/validation';
import { InvalidInputError } from '@holdfast/protocol/errors';
import {
  deleteMcpToolControlInput,
  type DeleteMcpToolControlInput,
  MAX_CONTROLS_PER_SERVER,
  type McpToolControl,
  RATE_PERIODS,
  saveMcpToolControlInput,
  type SaveMcpToolControlInput,
} from '@holdfast/protocol/inputs/mcp-tool-control-input';

/** A control as stored and shown: its server, and who set it when. */
export interface StoredMcpToolControl extends McpToolControl {
  server: string;
  updatedBy: string;
  updatedAt: Date;
}

interface ControlRow extends Record<string, unknown> {
  server_name: string;
  tool: string;
  price_micros: string | number | null;
  rate_calls: number | null;
  rate_period_ms: number | null;
  max_identical_calls: number | null;
  all_agents_rate_calls: number | null;
  all_agents_rate_period_ms: number | null;
  spend_limit_micros: string | number | null;
  spend_limit_period_ms: number | null;
  unit_price_micros: string | number | null;
  unit_field: string | null;
  updated_by: string;
  updated_at: Date | string;
}

/** What an audit record keeps of a control. */
const auditedControl = (control: McpToolControl) => ({
  priceMicros: control.priceMicros,
  rateLimit: control.rateLimit,
  maxIdenticalCalls: control.maxIdenticalCalls,
  // The later controls when set, in one order (the same settings compare the same).
  ...(control.allAgentsRateLimit ? { allAgentsRateLimit: control.allAgentsRateLimit } : {}),
  ...(control.spendLimit ? { spendLimit: control.spendLimit } : {}),
  ...(control.unitPrice ? { unitPrice: control.unitPrice } : {}),
});

/**
 * Sets the console's controls for a tool of an MCP server (or `*`), which the gateways in front of it take with
 * their next report's answer (within 30 seconds); admins only, with a reason, audited in the same transaction.
 * Saving what is already set writes nothing.
 */
export function saveMcpToolControl(
  ctx: CoreContext,
  input: SaveMcpToolControlInput,
): Promise<{ changed: boolean; created: boolean }> {
  return changeControl(ctx, () => {
    const parsed = parseInput(saveMcpToolControlInput, input);
    const { server, tool, reason, priceUsd, rateCalls, ratePer, maxIdenticalCalls } = parsed;
    const micros = (usd: number) => Math.round(usd * 1_000_000);
    const next: McpToolControl = {
      tool,
      priceMicros: priceUsd === null ? null : micros(priceUsd),
      rateLimit: rateCalls === null ? null : { calls: rateCalls, periodMs: RATE_PERIODS[ratePer] },
      maxIdenticalCalls,
      ...(parsed.allAgentsRateCalls === null
        ? {}
        : {
            allAgentsRateLimit: { calls: parsed.allAgentsRateCalls, periodMs: RATE_PERIODS[parsed.allAgentsRatePer] },
          }),
      ...(parsed.spendLimitUsd === null
        ? {}
        : { spendLimit: { micros: micros(parsed.spendLimitUsd), periodMs: RATE_PERIODS[parsed.spendLimitPer] } }),
      ...(parsed.unitPriceUsd === null || parsed.unitField === null
        ? {}
        : { unitPrice: { micros: micros(parsed.unitPriceUsd), field: parsed.unitField } }),
    };
    return { server, tool, reason, next };
  });
}

/** Removes a control: the gateways use their own option again. Removing one that is gone changes nothing. */
export async function deleteMcpToolControl(
  ctx: CoreContext,
  input: DeleteMcpToolControlInput,
): Promise<{ changed: boolean }> {
  const { changed } = await changeControl(ctx, () => ({ ...parseInput(deleteMcpToolControlInput, input), next: null }));
  return { changed };
}

/**
 * One change of a control, checked (who, then what) before anything is read: the row locked, written or deleted,
 * and the audit record with what it was and became, in one transaction. What is already so writes nothing.
 */
async function changeControl(
  ctx: CoreContext,
  read: () => { server: string; tool: string; reason: string; next: McpToolControl | null },
): Promise<{ changed: boolean; created: boolean }> {
  const actor = authorize(ctx, 'mcp_tools.manage');
  const { server, tool, reason, next } = read();
  const after = next && auditedControl(next);
  return ctx.db.transaction(async (tx) => {
    const stored = await lockedControl(tx, server, tool);
    const before = stored ? auditedControl(stored) : null;
    if (JSON.stringify(before) === JSON.stringify(after)) return { changed: false, created: false };
    if (next) {
      if (!stored) await refuseBeyondBound(tx, server);
      await tx.execute(sql`
        insert into mcp_tool_controls (server_name, tool, price_micros, rate_calls, rate_period_ms,
          max_identical_calls, all_agents_rate_calls, all_agents_rate_period_ms, spend_limit_micros,
          spend_limit_period_ms, unit_price_micros, unit_field, updated_by, updated_at)
        values (${server}, ${tool}, ${next.priceMicros}, ${next.rateLimit?.calls ?? null},
          ${next.rateLimit?.periodMs ?? null}, ${next.maxIdenticalCalls}, ${next.allAgentsRateLimit?.calls ?? null},
          ${next.allAgentsRateLimit?.periodMs ?? null}, ${next.spendLimit?.micros ?? null},
          ${next.spendLimit?.periodMs ?? null}, ${next.unitPrice?.micros ?? null}, ${next.unitPrice?.field ?? null},
          ${actorLabel(actor)}, now())
        on conflict (server_name, tool) do update set price_micros = excluded.price_micros,
          rate_calls = excluded.rate_calls, rate_period_ms = excluded.rate_period_ms,
          max_identical_calls = excluded.max_identical_calls, all_agents_rate_calls = excluded.all_agents_rate_calls,
          all_agents_rate_period_ms = excluded.all_agents_rate_period_ms,
          spend_limit_micros = excluded.spend_limit_micros, spend_limit_period_ms = excluded.spend_limit_period_ms,
          unit_price_micros = excluded.unit_price_micros, unit_field = excluded.unit_field,
          updated_by = excluded.updated_by, updated_at = excluded.updated_at`);
    } else {
      await tx.execute(sql`delete from mcp_tool_controls where server_name = ${server} and tool = ${tool}`);
    }
    await writeAudit(tx, actor, {
      action: next ? 'mcp_tool_control.save' : 'mcp_tool_control.delete',
      targetType: 'mcp_tool_control',
      targetId: `${server}/${tool}`,
      reason,
      before,
      after,
    });
    return { changed: true, created: !stored };
  });
}

/** The controls set for one server, or for every server when none is named; by server, then tool. */
export async function readMcpToolControls(db: Executor, server?: string): Promise<StoredMcpToolControl[]> {
  const rows = await db.execute<ControlRow>(sql`
    select * from mcp_tool_controls
    where ${server === undefined ? sql`true` : sql`server_name = ${server}`}
    order by server_name, tool = '*' desc, tool`);
  return [...rows].map(controlOfRow);
}

async function lockedControl(tx: Transaction, server: string, tool: string): Promise<StoredMcpToolControl | undefined> {
  const rows = await tx.execute<ControlRow>(sql`
    select * from mcp_tool_controls where server_name = ${server} and tool = ${tool} for update`);
  const row = [...rows][0];
  return row ? controlOfRow(row) : undefined;
}

async function refuseBeyondBound(tx: Transaction, server: string): Promise<void> {
  // Two admins adding the last ones at once may pass one over the bound; the bound keeps the gateway's answer
  // small, not exact.
  const rows = await tx.execute<{ controls: number }>(
    sql`select count(*)::int as controls from mcp_tool_controls where server_name = ${server}`,
  );
  if (([...rows][0]?.controls ?? 0) >= MAX_CONTROLS_PER_SERVER) {
    throw new InvalidInputError(`Invalid input: ${server} already has ${MAX_CONTROLS_PER_SERVER} controls`, {
      tool: [`the server already has ${MAX_CONTROLS_PER_SERVER} controls: remove one, or use * for every tool`],
    });
  }
}

function controlOfRow(row: ControlRow): StoredMcpToolControl {
  return {
    server: row.server_name,
    tool: row.tool,
    priceMicros: row.price_micros === null ? null : Number(row.price_micros),
    rateLimit:
      row.rate_calls === null || row.rate_period_ms === null
        ? null
        : { calls: row.rate_calls, periodMs: row.rate_period_ms },
    maxIdenticalCalls: row.max_identical_calls,
    // The later controls only when set (mcpToolControlJson: a gateway of the release before knows none of them).
    ...(row.all_agents_rate_calls === null || row.all_agents_rate_period_ms === null
      ? {}
      : { allAgentsRateLimit: { calls: row.all_agents_rate_calls, periodMs: row.all_agents_rate_period_ms } }),
    ...(row.spend_limit_micros === null || row.spend_limit_period_ms === null
      ? {}
      : { spendLimit: { micros: Number(row.spend_limit_micros), periodMs: row.spend_limit_period_ms } }),
    ...(row.unit_price_micros === null || row.unit_field === null
      ? {}
      : { unitPrice: { micros: Number(row.unit_price_micros), field: row.unit_field } }),
    updatedBy: row.updated_by,
    updatedAt: new Date(row.updated_at),
  };
}
