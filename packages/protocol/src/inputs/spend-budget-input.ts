import { z } from 'zod';
import { NAME_PATTERN } from '../names';

/**
 * What a budget covers: the whole fleet, one agent's work, the tasks of one owner (a team or a person), one queue,
 * one step (of every agent: an MCP tool's step is `<server>:<tool>`), or one downstream (an MCP server is
 * `mcp:<server>`).
 */
export const budgetScopes = ['fleet', 'agent', 'owner', 'queue', 'step', 'downstream'] as const;
export type BudgetScope = (typeof budgetScopes)[number];
/** The UTC hour, day or month a budget's limit holds for, from its start. */
export const budgetPeriods = ['hour', 'day', 'month'] as const;
export type BudgetPeriod = (typeof budgetPeriods)[number];
/** A begin past the limit: wait for the period to turn (Retry-After), or stop (do not retry). */
export const budgetExhaustions = ['wait', 'stop'] as const;
export type BudgetExhaustion = (typeof budgetExhaustions)[number];

/** The most budgets the fleet may have: each begin checks the ones that cover it in memory. */
export const MAX_BUDGETS = 200;
/** The largest limit: $10,000,000 a period, in micro-dollars. */
const MAX_LIMIT_MICROS = 10_000_000_000_000;

const reason = z.string().trim().min(1, 'say why').max(2_000, 'must be at most 2,000 characters');
const name = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9 _.:/@-]{0,79}$/, '1 to 80 letters, digits, spaces and _ . : / @ -');

export const saveSpendBudgetInput = z
  .strictObject({
    name,
    scope: z.enum(budgetScopes, { error: `must be one of ${budgetScopes.join(', ')}` }),
    /** What the scope names; blank for the fleet. */
    scopeValue: z.string().trim().max(200, 'must be at most 200 characters').default(''),
    period: z.enum(budgetPeriods, { error: 'must be hour, day or month' }),
    limitUsd: z
      .number({ error: 'must be a number' })
      .positive('must be more than 0')
      .max(MAX_LIMIT_MICROS / 1_000_000, 'must be at most $10,000,000'),
    warnPercents: z
      .array(z.number().int('must be whole percents').min(1, 'must be 1 to 100').max(100, 'must be 1 to 100'))
      .max(10, 'at most 10 thresholds')
      .default([50, 80, 100])
      .transform((percents) => [...new Set(percents)].sort((a, b) => a - b)),
    onExhausted: z.enum(budgetExhaustions, { error: 'must be wait or stop' }).default('wait'),
    /** The share kept for first attempts: retries may spend at most the rest of the limit. */
    firstAttemptPercent: z
      .number({ error: 'must be a number' })
      .int('must be a whole percent')
      .min(0, 'must be 0 to 100')
      .max(100, 'must be 0 to 100')
      .nullable()
      .default(null),
    reason,
  })
  .superRefine((input, context) => {
    if (input.scope === 'fleet' && input.scopeValue !== '') {
      context.addIssue({ code: 'custom', path: ['scopeValue'], message: 'must be blank for the whole fleet' });
    }
    if (input.scope !== 'fleet' && !NAME_PATTERN.test(input.scopeValue)) {
      context.addIssue({
        code: 'custom',
        path: ['scopeValue'],
        message: `name the ${input.scope} (letters, digits and _ . : - only)`,
      });
    }
  });
export type SaveSpendBudgetInput = z.input<typeof saveSpendBudgetInput>;

export const deleteSpendBudgetInput = z.strictObject({ name, reason });
export type DeleteSpendBudgetInput = z.input<typeof deleteSpendBudgetInput>;

/** A budget named in a begin's answer: which one refused, its limit, and when its period turns. */
export const budgetInfo = z.object({
  name: z.string(),
  scope: z.enum(budgetScopes),
  scopeValue: z.string(),
  period: z.enum(budgetPeriods),
  limitMicros: z.number().int(),
  periodEndsAt: z.string(),
});
export type BudgetInfo = z.infer<typeof budgetInfo>;
