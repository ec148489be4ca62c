import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { mcpCallOutcomes, type McpCallOutcome } from '@holdfast/protocol/inputs/mcp-gateway-report-input';

/** Each MCP gateway instance that reported: its server, version and options (no secret), when it was last heard. */
export const mcpGatewayInstances = pgTable(
  'mcp_gateway_instances',
  {
    instanceId: uuid('instance_id').primaryKey(),
    serverName: text('server_name').notNull(),
    version: text('version').notNull(),
    config: jsonb('config').$type<Record<string, string | number | boolean>>().notNull(),
    /** The token the reports came with (its owner's name for it, as the audit log names a token). */
    reportedBy: text('reported_by').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull(),
  },
  (table) => [index('mcp_gateway_instances_last_seen_idx').on(table.lastSeenAt)],
);

/** How many calls of each tool of each server ended each way, per UTC hour, as the gateways report them. */
export const mcpToolCounts = pgTable(
  'mcp_tool_counts',
  {
    serverName: text('server_name').notNull(),
    tool: text('tool').notNull(),
    hour: timestamp('hour', { withTimezone: true }).notNull(),
    outcome: text('outcome').$type<McpCallOutcome>().notNull(),
    calls: bigint('calls', { mode: 'number' }).notNull(),
  },
  (table) => [
    primaryKey({ name: 'mcp_tool_counts_pkey', columns: [table.serverName, table.tool, table.hour, table.outcome] }),
    index('mcp_tool_counts_hour_idx').on(table.hour),
    check(
      'mcp_tool_counts_outcome_known',
      sql`${table.outcome} in (${sql.raw(mcpCallOutcomes.map((outcome) => `'${outcome}'`).join(', '))})`,
    ),
  ],
);

/**
 * Controls an admin set in the console for a tool of an MCP server (`*`: every tool of it without its own), which
 * the gateways in front of that server take in place of their own options: a price per call and per unit, a rate
 * per agent and for all agents, a spend limit per agent, a cap on identical calls in a session. A null is the
 * gateway's own option.
 */
export const mcpToolControls = pgTable(
  'mcp_tool_controls',
  {
    serverName: text('server_name').notNull(),
    tool: text('tool').notNull(),
    priceMicros: bigint('price_micros', { mode: 'number' }),
    rateCalls: integer('rate_calls'),
    ratePeriodMs: integer('rate_period_ms'),
    maxIdenticalCalls: integer('max_identical_calls'),
    /** Calls of the tool all agents together may make per period (the gateway's --tool-rate-limit). */
    allAgentsRateCalls: integer('all_agents_rate_calls'),
    allAgentsRatePeriodMs: integer('all_agents_rate_period_ms'),
    /** What one agent's calls of the tool may cost per period (the gateway's --spend-limit). */
    spendLimitMicros: bigint('spend_limit_micros', { mode: 'number' }),
    spendLimitPeriodMs: integer('spend_limit_period_ms'),
    /** A price per unit the tool's structured result counts at `unit_field` (the gateway's --tool-unit-price). */
    unitPriceMicros: bigint('unit_price_micros', { mode: 'number' }),
    unitField: text('unit_field'),
    updatedBy: text('updated_by').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    primaryKey({ name: 'mcp_tool_controls_pkey', columns: [table.serverName, table.tool] }),
    check('mcp_tool_controls_rate_whole', sql`(${table.rateCalls} is null) = (${table.ratePeriodMs} is null)`),
    check(
      'mcp_tool_controls_all_agents_rate_whole',
      sql`(${table.allAgentsRateCalls} is null) = (${table.allAgentsRatePeriodMs} is null)`,
    ),
    check(
      'mcp_tool_controls_spend_limit_whole',
      sql`(${table.spendLimitMicros} is null) = (${table.spendLimitPeriodMs} is null)`,
    ),
    check('mcp_tool_controls_unit_price_whole', sql`(${table.unitPriceMicros} is null) = (${table.unitField} is null)`),
    check(
      'mcp_tool_controls_sets_something',
      sql`${table.priceMicros} is not null or ${table.rateCalls} is not null or ${table.maxIdenticalCalls} is not null
        or ${table.allAgentsRateCalls} is not null or ${table.spendLimitMicros} is not null
        or ${table.unitPriceMicros} is not null`,
    ),
  ],
);
