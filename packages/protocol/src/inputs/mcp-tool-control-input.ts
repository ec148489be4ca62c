import { z } from 'zod';

/** The tool name that stands for every tool of a server without a control of its own. */
export const EVERY_TOOL = '*';
/** The most controls one server may have (one per tool, and `*`). */
export const MAX_CONTROLS_PER_SERVER = 500;
/** The units a rate is counted in, and their length. */
export const RATE_PERIODS = { s: 1_000, m: 60_000, h: 3_600_000 } as const;
export type RatePeriod = keyof typeof RATE_PERIODS;

const reason = z.string().trim().min(1, 'say why').max(2_000, 'must be at most 2,000 characters');
/** A server as its gateway's --server-name names it (a step name's part before the tool: no colon). */
const server = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$/, '1 to 40 letters, digits and _ . -, starting with a letter or digit');
/** A tool as the server lists it, or `*` for every tool without a control of its own. */
const tool = z
  .string()
  .trim()
  .regex(/^\P{Cc}{1,200}$/u, 'name the tool as the server lists it (at most 200 characters), or * for every tool');

/** A rate's number of calls (null: the gateway's own), and its period. */
const rateCalls = () =>
  z
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be 1 or more')
    .max(1_000_000, 'must be at most 1,000,000')
    .nullable()
    .default(null);
const ratePer = () => z.enum(['s', 'm', 'h'], { error: 'must be s, m or h' }).default('m');

/**
 * Controls an admin sets in the console for a tool of an MCP server (or `*`: every tool without its own), which the
 * gateways in front of that server take with their next report's answer. Each left out (null) is the gateway's own
 * option. A price per call in USD, a rate per agent, a cap on identical calls in a session (0: none), a rate for
 * all agents together, a spend limit per agent, a price per unit the tool's result counts.
 */
export const saveMcpToolControlInput = z
  .strictObject({
    server,
    tool,
    priceUsd: z
      .number({ error: 'must be a number' })
      .min(0, 'must be 0 or more')
      .max(1_000, 'must be at most 1,000 $ a call')
      .nullable()
      .default(null),
    rateCalls: rateCalls(),
    ratePer: ratePer(),
    maxIdenticalCalls: z
      .number({ error: 'must be a number' })
      .int('must be a whole number')
      .min(0, 'must be 0 (no cap) or more')
      .max(10_000, 'must be at most 10,000')
      .nullable()
      .default(null),
    /** Calls of the tool all agents together may make per `allAgentsRatePer`. */
    allAgentsRateCalls: rateCalls(),
    allAgentsRatePer: ratePer(),
    /** What one agent's calls of the tool may cost per `spendLimitPer`, in USD. */
    spendLimitUsd: z
      .number({ error: 'must be a number' })
      .positive('must be more than 0')
      .max(1_000_000, 'must be at most 1,000,000 $')
      .nullable()
      .default(null),
    spendLimitPer: z.enum(['m', 'h'], { error: 'must be m or h' }).default('h'),
    /** A price per unit the tool's structured result counts at `unitField`, in USD. */
    unitPriceUsd: z
      .number({ error: 'must be a number' })
      .min(0, 'must be 0 or more')
      .max(1_000, 'must be at most 1,000 $ a unit')
      .nullable()
      .default(null),
    unitField: z
      .string()
      .trim()
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "a field of the tool's structured result: letters, digits and _")
      .nullable()
      .default(null),
    reason,
  })
  .refine(
    (input) =>
      input.priceUsd !== null ||
      input.rateCalls !== null ||
      input.maxIdenticalCalls !== null ||
      input.allAgentsRateCalls !== null ||
      input.spendLimitUsd !== null ||
      input.unitPriceUsd !== null,
    { message: 'set a price, a rate, a spend limit or a cap (to set none, remove the control)', path: ['priceUsd'] },
  )
  .refine((input) => (input.unitPriceUsd === null) === (input.unitField === null), {
    message: 'a price per unit needs the field of the result that counts the units, and the field a price',
    path: ['unitField'],
  });
export type SaveMcpToolControlInput = z.input<typeof saveMcpToolControlInput>;

export const deleteMcpToolControlInput = z.strictObject({ server, tool, reason });
export type DeleteMcpToolControlInput = z.input<typeof deleteMcpToolControlInput>;

const rate = z.strictObject({ calls: z.number().int().min(1), periodMs: z.number().int().min(1) });

/**
 * A control as the gateway receives it with its report's answer. The later controls (a rate for all agents, a spend
 * limit, a price per unit) are sent only when set, so that a gateway of the release before, which knows none of
 * them, still reads the controls that do not use them.
 */
export const mcpToolControlJson = z.strictObject({
  tool: z.string(),
  priceMicros: z.number().int().min(0).nullable(),
  rateLimit: rate.nullable(),
  maxIdenticalCalls: z.number().int().min(0).nullable(),
  allAgentsRateLimit: rate.optional(),
  spendLimit: z.strictObject({ micros: z.number().int().min(1), periodMs: z.number().int().min(1) }).optional(),
  unitPrice: z.strictObject({ micros: z.number().int().min(0), field: z.string() }).optional(),
});
export type McpToolControl = z.infer<typeof mcpToolControlJson>;
