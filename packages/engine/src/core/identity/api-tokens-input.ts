import { z } from 'zod';
import { tokenScopes } from '@holdfast/protocol/enums';
import { agentName, queueName } from '@holdfast/protocol/names';

/**
 * Optional limits: the agents (or queues) the token may act for. Absent or
 * empty means no limit; the console's form sends a blank field as empty.
 */
const limitList = (name: typeof agentName) =>
  z
    .array(name)
    .max(50, 'name at most 50')
    .optional()
    .transform((names) => (names && names.length > 0 ? [...new Set(names)] : undefined));

/** Requests per second a token's bucket refills at; null: the deployment's default (HOLDFAST_AGENT_RATE_PER_SECOND). */
const ratePerSecond = z
  .number({ error: 'must be a number' })
  .min(0.01, 'must be at least 0.01 a second')
  .max(100_000, 'must be at most 100,000 a second')
  .nullable();

/** Requests a token may make at once (its bucket's size); null: the deployment's default (HOLDFAST_AGENT_RATE_BURST). */
const rateBurst = z
  .number({ error: 'must be a whole number' })
  .int('must be a whole number')
  .min(1, 'must be at least 1')
  .max(1_000_000, 'must be at most 1,000,000')
  .nullable();

export const createApiTokenInput = z.strictObject({
  name: z.string().trim().min(1, 'name the agent or service that will use it').max(100),
  scopes: z.array(z.enum(tokenScopes)).min(1, 'choose at least one scope').max(tokenScopes.length),
  /** The token acts only for these agents (steps, attempts, runs, keys and holds of their tasks). */
  allowedAgents: limitList(agentName),
  /** The token acts only on these queues (dead letters and redrives). */
  allowedQueues: limitList(queueName),
  /** The token's rate limit; absent or null: the deployment's defaults. */
  ratePerSecond: ratePerSecond.optional(),
  rateBurst: rateBurst.optional(),
});

export const setApiTokenRateLimitInput = z.strictObject({
  tokenId: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  ratePerSecond,
  rateBurst,
});

export const revokeApiTokenInput = z.strictObject({ tokenId: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER) });
