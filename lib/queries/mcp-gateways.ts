import 'server-only';
import { sql } from 'drizzle-orm';
import type { Executor } from '@holdfast/engine/db';
import { mcpCallOutcomes, type McpCallOutcome } from '@holdfast/protocol/inputs/mcp-gateway-report-input';
import type { TimeRange } from '@holdfast/protocol/time-window';
import { readMcpToolControls, type StoredMcpToolControl } from '@holdfast/engine/core';
import { readStepFigures } from './step-figures';

/** One tool of one MCP server over the window: what became of its calls, and what its steps cost. */
export interface McpToolRow {
  server: string;
  tool: string;
  /** Every call the gateways counted, whatever became of it. */
  calls: number;
  outcomes: Record<McpCallOutcome, number>;
  /** The tool's Holdfast step (`<server>:<tool>`): its attempts and their cost, across agents. */
  attempts: number;
  costMicros: number;
  /** Its step breakers not closed now, across agents. */
  openBreakers: number;
}

export interface McpServerView {
  server: string;
  tools: McpToolRow[];
  /** The agents' breakers for the server (downstream `mcp:<server>`) not closed now. */
  openBreakers: number;
}

export interface McpGatewayInstance {
  instanceId: string;
  server: string;
  version: string;
  config: Record<string, string | number | boolean>;
  reportedBy: string;
  startedAt: Date;
  lastSeenAt: Date;
}

export interface McpGatewaysView {
  servers: McpServerView[];
  instances: McpGatewayInstance[];
  /** The controls set in the console, by server then tool (`*` first). */
  controls: StoredMcpToolControl[];
  /** Every server named anywhere (counts in the window, instances, controls), for the controls form. */
  knownServers: string[];
  /** Each server's tools seen in the window, for the controls form. */
  knownTools: Record<string, string[]>;
}

/** The most tools listed (most calls first) and instances (latest first). */
const MAX_TOOLS = 500;
const MAX_INSTANCES = 100;

const emptyOutcomes = () =>
  Object.fromEntries(mcpCallOutcomes.map((outcome) => [outcome, 0])) as Record<McpCallOutcome, number>;

/**
 * What the MCP gateways reported over the window (their counts are per UTC hour: the window is read from the hour
 * holding its start), per server and tool, beside what Holdfast recorded of the tools' steps (a tool's step is
 * `<server>:<tool>`, the tool's name with characters a step name cannot hold made `_`), the breakers of the servers
 * and tools, and the instances heard from.
 */
export async function getMcpGateways(db: Executor, range: TimeRange): Promise<McpGatewaysView> {
  const from = new Date(Math.floor(range.from.getTime() / 3_600_000) * 3_600_000).toISOString();
  const to = range.to.toISOString();
  const [counted, instances, serverBreakers, controls] = await Promise.all([
    db.execute<{
      server_name: string;
      tool: string;
      step: string;
      outcome: McpCallOutcome;
      calls: string;
      open_breakers: string;
    }>(sql`
      with counts as (
        select server_name, tool, outcome, sum(calls) as calls from mcp_tool_counts
        where hour >= ${from}::timestamptz and hour < ${to}::timestamptz
        group by 1, 2, 3
      ),
      tools as (
        select server_name, tool, server_name || ':' || regexp_replace(tool, '[^A-Za-z0-9_.:-]', '_', 'g') as step,
          sum(calls) as calls
        from counts group by 1, 2 order by sum(calls) desc, 1, 2 limit ${MAX_TOOLS}
      ),
      breakers as (
        select step, count(*) as open_breakers from circuit_breakers
        where scope = 'step' and state <> 'closed' and step in (select step from tools) group by step
      )
      select counts.server_name, counts.tool, tools.step, counts.outcome, counts.calls::text,
        coalesce(breakers.open_breakers, 0)::text as open_breakers
      from counts join tools using (server_name, tool)
      left join breakers on breakers.step = tools.step
      order by tools.calls desc, counts.server_name, counts.tool`),
    db.execute<{
      instance_id: string;
      server_name: string;
      version: string;
      config: Record<string, string | number | boolean>;
      reported_by: string;
      started_at: Date | string;
      last_seen_at: Date | string;
    }>(sql`
      select instance_id, server_name, version, config, reported_by, started_at, last_seen_at
      from mcp_gateway_instances order by last_seen_at desc limit ${MAX_INSTANCES}`),
    db.execute<{ downstream: string; open: string }>(sql`
      select downstream, count(*)::text as open from circuit_breakers
      where scope = 'downstream' and state <> 'closed' and downstream like 'mcp:%' group by downstream`),
    readMcpToolControls(db),
  ]);

  const spent = await stepSpend(db, range, [...new Set(counted.map((row) => row.step))]);
  const servers = new Map<string, McpServerView>();
  const tools = new Map<string, McpToolRow>();
  for (const row of counted) {
    const key = `${row.server_name}\u0000${row.tool}`;
    let tool = tools.get(key);
    if (!tool) {
      tool = {
        server: row.server_name,
        tool: row.tool,
        calls: 0,
        outcomes: emptyOutcomes(),
        attempts: spent.get(row.step)?.attempts ?? 0,
        costMicros: spent.get(row.step)?.costMicros ?? 0,
        openBreakers: Number(row.open_breakers),
      };
      tools.set(key, tool);
      const server = servers.get(row.server_name) ?? { server: row.server_name, tools: [], openBreakers: 0 };
      server.tools.push(tool);
      servers.set(row.server_name, server);
    }
    tool.outcomes[row.outcome] += Number(row.calls);
    tool.calls += Number(row.calls);
  }
  for (const breaker of serverBreakers) {
    const server = servers.get(breaker.downstream.slice('mcp:'.length));
    if (server) server.openBreakers = Number(breaker.open);
  }
  const knownServers = [
    ...new Set([...servers.keys(), ...instances.map((row) => row.server_name), ...controls.map((row) => row.server)]),
  ].sort();
  const knownTools = Object.fromEntries(
    [...servers.values()].map((server) => [server.server, server.tools.map((tool) => tool.tool).sort()]),
  );
  return {
    controls,
    knownServers,
    knownTools,
    servers: [...servers.values()],
    instances: instances.map((row) => ({
      instanceId: row.instance_id,
      server: row.server_name,
      version: row.version,
      config: row.config,
      reportedBy: row.reported_by,
      startedAt: new Date(row.started_at),
      lastSeenAt: new Date(row.last_seen_at),
    })),
  };
}

/**
 * The tools' steps' attempts and spend over the window, summed over the agents that ran them (read from the rollups
 * through the Steps page's figures; the agents from step_sources, one row per agent, step and way in).
 */
async function stepSpend(db: Executor, range: TimeRange, steps: string[]) {
  const spent = new Map<string, { attempts: number; costMicros: number }>();
  if (steps.length === 0) return spent;
  const ran = await db.execute<{ agent: string; step: string }>(sql`
    select distinct agent, step from step_sources
    where step in (select jsonb_array_elements_text(${JSON.stringify(steps)}::jsonb))`);
  if (ran.length === 0) return spent;
  for (const row of await readStepFigures(db, { ...range, steps: ran.map(({ agent, step }) => ({ agent, step })) })) {
    const sum = spent.get(row.step) ?? { attempts: 0, costMicros: 0 };
    sum.attempts += row.attempts;
    sum.costMicros += row.totalSpendMicros;
    spent.set(row.step, sum);
  }
  return spent;
}
