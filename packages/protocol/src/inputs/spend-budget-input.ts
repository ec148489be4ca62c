import { z } from 'zod';
import { NAME_PATTERN } from '../names';

/**
 * What a budget covers: the whole fleet, one agent's work, the tasks of one owner (a team or a person), one queue,
 * one step (of every agent: an MCP tool's step is `<server>:<tool>`), one downstream (an MCP server is
 * `mcp:<server>`), or the calls of one model (as the begin, the finish, the report or the span names it; compared
 * without regard to case).
 */
export const budgetScopes = ['fleet', 'agent', 'owner', 'queue', 'step', 'downstream', 'model'] as const;
export type BudgetScope = (typeof budgetScopes)[number];
/**
 * What a budget's limit holds for: a UTC hour, day or month from its start; the last hour, rolling in five-minute
 * steps (spend leaves it 55 to 60 minutes after it began); or a custom period of `resetEveryHours` counted from
 * `resetFrom`.
 */
export const budgetPeriods = ['hour', 'day', 'month', 'rolling_hour', 'custom'] as const;
export type BudgetPeriod = (typeof budgetPeriods)[number];
/** How a period is named in words: "a UTC day", "the last hour (rolling)", "every 6 hours". */
export function periodWords(budget: { period: BudgetPeriod; resetEveryHours?: number | null }): string {
  if (budget.period === 'rolling_hour') return 'the last hour (rolling)';
  if (budget.period === 'custom') {
    const hours = budget.resetEveryHours ?? 0;
    if (hours === 24) return 'every day';
    if (hours === 1) return 'every hour';
    return hours % 24 === 0 ? `every ${hours / 24} days` : `every ${hours} hours`;
  }
  return `a UTC ${budget.period}`;
}
/** The longest custom period: a year of hours. */
export const MAX_RESET_EVERY_HOURS = 8_784;
/** A model as providers name it: `gpt-4o-mini`, `claude-sonnet-4-5@20250929`, `meta-llama/Llama-3.1-70B`. */
export const MODEL_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:/@+-]{0,199}$/;

/**
 * A model as budgets count it: lower-cased, without a dated snapshot's suffix (`gpt-4o-mini-2024-07-18`,
 * `claude-3-5-sonnet-20241022`, `claude-sonnet-4-5@20250929`), so that a budget for `gpt-4o-mini` covers the
 * calls an instrumentation names by the snapshot that answered (OpenInference's `llm.model_name` does).
 */
export function budgetModelOf(model: string): string {
  return model
    .trim()
    .toLowerCase()
    .slice(0, 200)
    .replace(/[-@](\d{4}-\d{2}-\d{2}|\d{8})$/, '');
}
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
    period: z.enum(budgetPeriods, { error: 'must be hour, day, month, rolling_hour or custom' }),
    /** A custom period's length, in whole hours (24 a day); only for `custom`. */
    resetEveryHours: z
      .number({ error: 'must be a number of hours' })
      .int('must be whole hours')
      .min(1, 'must be at least 1 hour')
      .max(MAX_RESET_EVERY_HOURS, 'must be at most 8,784 hours (a year)')
      .nullable()
      .default(null),
    /** When a custom period's first one began (ISO 8601, on the hour); only for `custom`. */
    resetFrom: z.iso
      .datetime({ offset: true, error: 'must be a date and time, ISO 8601 (2026-12-01T00:00:00Z)' })
      .nullable()
      .default(null),
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
    if (input.scope === 'model' && !MODEL_NAME_PATTERN.test(input.scopeValue)) {
      context.addIssue({
        code: 'custom',
        path: ['scopeValue'],
        message: 'name the model as its provider does (letters, digits and _ . : / @ + - only)',
      });
    }
    if (input.period === 'custom') {
      if (input.resetEveryHours === null) {
        context.addIssue({ code: 'custom', path: ['resetEveryHours'], message: 'say how many hours a period lasts' });
      }
      if (input.resetFrom === null) {
        context.addIssue({ code: 'custom', path: ['resetFrom'], message: 'say when the first period began' });
      } else if (Date.parse(input.resetFrom) % 3_600_000 !== 0) {
        context.addIssue({
          code: 'custom',
          path: ['resetFrom'],
          message: 'must be on the hour (minutes and seconds 0)',
        });
      }
    } else {
      if (input.resetEveryHours !== null) {
        context.addIssue({ code: 'custom', path: ['resetEveryHours'], message: 'only a custom period has a length' });
      }
      if (input.resetFrom !== null) {
        context.addIssue({ code: 'custom', path: ['resetFrom'], message: 'only a custom period has a start' });
      }
    }
    if (input.scope !== 'fleet' && input.scope !== 'model' && !NAME_PATTERN.test(input.scopeValue)) {
      context.addIssue({
        code: 'custom',
        path: ['scopeValue'],
        message: `name the ${input.scope} (letters, digits and _ . : - only)`,
      });
    }
  })
  // A model is kept as budgets count it (budgetModelOf); a custom period's start is kept as UTC.
  .transform((input) => ({
    ...input,
    scopeValue: input.scope === 'model' ? budgetModelOf(input.scopeValue) : input.scopeValue,
    resetFrom: input.resetFrom === null ? null : new Date(input.resetFrom).toISOString(),
  }));
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
