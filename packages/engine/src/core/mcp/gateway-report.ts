import { sql } from 'drizzle-orm';
import { type McpGatewayReportInput, mcpGatewayReportInput } from '@holdfast/protocol/inputs/mcp-gateway-report-input';
import { parseInput } from '@holdfast/protocol/validation';
import { authorize } from '../identity/authorization';
import { actorLabel, type CoreContext, nowOf } from '../kernel/context';
import type { McpToolControl } from '@holdfast/protocol/inputs/mcp-tool-control-input';
import { readMcpToolControls } from './tool-controls';

/** An instance not heard from for this long is forgotten (its counts stay). */
const INSTANCE_FORGOTTEN_AFTER = '7 days';

/**
 * Records an MCP gateway's report in one transaction: the instance (its server, version and options, and the token
 * it reported with) and its counts added to the current UTC hour's. A report sent again (the gateway's retry after
 * a lost answer) adds its counts again: the gateway sends each count once, and a retry only after no answer.
 * The agent's own work (`agent.coordinate`), so an ingest token reports. The answer carries the controls set in the
 * console for the server (not secret: what a gateway in front of it enforces).
 */
export async function recordMcpGatewayReport(
  ctx: CoreContext,
  input: McpGatewayReportInput,
): Promise<{ counted: number; controls: McpToolControl[] }> {
  const actor = authorize(ctx, 'agent.coordinate');
  const report = parseInput(mcpGatewayReportInput, input);
  const now = nowOf(ctx);
  const hour = new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000).toISOString();
  const { counted } = await ctx.db.transaction(async (tx) => {
    await tx.execute(sql`
      insert into mcp_gateway_instances (instance_id, server_name, version, config, reported_by, started_at, last_seen_at)
      values (${report.instanceId}, ${report.serverName}, ${report.version}, ${JSON.stringify(report.config)}::jsonb,
        ${actorLabel(actor)}, ${report.startedAt}::timestamptz, ${now.toISOString()}::timestamptz)
      on conflict (instance_id) do update set server_name = excluded.server_name, version = excluded.version,
        config = excluded.config, reported_by = excluded.reported_by, last_seen_at = excluded.last_seen_at`);
    await tx.execute(sql`
      delete from mcp_gateway_instances
      where last_seen_at < ${now.toISOString()}::timestamptz - ${INSTANCE_FORGOTTEN_AFTER}::interval`);
    if (report.counts.length === 0) return { counted: 0 };
    const rows = JSON.stringify(report.counts);
    await tx.execute(sql`
      insert into mcp_tool_counts as kept (server_name, tool, hour, outcome, calls)
      select ${report.serverName}, c.tool, ${hour}::timestamptz, c.outcome, sum(c.calls)
      from jsonb_to_recordset(${rows}::jsonb) as c(tool text, outcome text, calls bigint)
      group by c.tool, c.outcome
      on conflict (server_name, tool, hour, outcome) do update set calls = kept.calls + excluded.calls`);
    return { counted: report.counts.reduce((sum, count) => sum + count.calls, 0) };
  });
  // The answer carries the console's controls for the server: the gateway takes them in place of its own options.
  // The later controls are there only when set: a gateway of the release before reads the rest.
  const controls = (await readMcpToolControls(ctx.db, report.serverName)).map(
    ({ server: _server, updatedBy: _by, updatedAt: _at, ...control }) => control,
  );
  return { counted, controls };
}
