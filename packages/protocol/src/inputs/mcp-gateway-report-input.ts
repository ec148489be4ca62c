import { z } from 'zod';
import { NAME_PATTERN } from '../names';

/**
 * What became of a tools/call at an MCP gateway, as the gateway counts it (packages/client/src/adapters/mcp): run
 * as a Holdfast step, replayed, passed straight through, refused for the caller's mistake or by a control, told to
 * wait, stopped, or not guarded because Holdfast could not be reached.
 */
export const mcpCallOutcomes = [
  'ran',
  'replayed',
  'passed_through',
  'refused_unknown_tool',
  'refused_arguments',
  'refused_meta',
  'refused_keyless',
  'rate_limited',
  'loop_stopped',
  'waited',
  'stopped',
  'holdfast_failed',
] as const;
export type McpCallOutcome = (typeof mcpCallOutcomes)[number];

/** The most counts one report carries: a gateway with more tools reports in several. */
export const MAX_REPORT_COUNTS = 500;
const MAX_CONFIG_ENTRIES = 40;

/**
 * A gateway's report, sent every 30 seconds and when it stops: which instance it is (its version and the options it
 * runs with, never a secret), and how many calls of each tool ended each way since its last report.
 */
export const mcpGatewayReportInput = z.strictObject({
  instanceId: z.uuid(),
  serverName: z.string().regex(NAME_PATTERN).max(40),
  version: z.string().min(1).max(40),
  startedAt: z.iso.datetime({ offset: true }),
  config: z
    .record(z.string().min(1).max(60), z.union([z.string().max(200), z.number(), z.boolean()]))
    .refine(
      (config) => Object.keys(config).length <= MAX_CONFIG_ENTRIES,
      `must hold at most ${MAX_CONFIG_ENTRIES} options`,
    ),
  counts: z
    .array(
      z.strictObject({
        tool: z.string().min(1).max(200),
        outcome: z.enum(mcpCallOutcomes),
        calls: z.number().int().min(1).max(1_000_000),
      }),
    )
    .max(MAX_REPORT_COUNTS, `must hold at most ${MAX_REPORT_COUNTS} counts`),
});
export type McpGatewayReportInput = z.infer<typeof mcpGatewayReportInput>;
