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
  updated_by: string;
  updated_at: Date | string;
}

/** What an audit record keeps of a control. */
const auditedControl = (control: McpToolControl) => ({
  priceMicros: control.priceMicros,
  rateLimit: control.rateLimit,
  maxIdenticalCalls: control.maxIdenticalCalls,
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
    const { server, tool, reason, priceUsd, rateCalls, ratePer, maxIdenticalCalls } = parseInput(
      saveMcpToolControlInput,
      input,
    );
    const priceMicros = priceUsd === null ? null : Math.round(priceUsd * 1_000_000);
    const rateLimit = rateCalls === null ? null : { calls: rateCalls, periodMs: RATE_PERIODS[ratePer] };
    return { server, tool, reason, next: { tool, priceMicros, rateLimit, maxIdenticalCalls } };
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
          max_identical_calls, updated_by, updated_at)
        values (${server}, ${tool}, ${next.priceMicros}, ${next.rateLimit?.calls ?? null},
          ${next.rateLimit?.periodMs ?? null}, ${next.maxIdenticalCalls}, ${actorLabel(actor)}, now())
        on conflict (server_name, tool) do update set price_micros = excluded.price_micros,
          rate_calls = excluded.rate_calls, rate_period_ms = excluded.rate_period_ms,
          max_identical_calls = excluded.max_identical_calls, updated_by = excluded.updated_by,
          updated_at = excluded.updated_at`);
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
    updatedBy: row.updated_by,
    updatedAt: new Date(row.updated_at),
  };
}
