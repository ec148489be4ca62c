import { z } from 'zod';
import { tokenScopes } from '../../db/schema/enums';
import { agentName, queueName } from '../names';

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

export const createApiTokenInput = z.strictObject({
  name: z.string().trim().min(1, 'name the agent or service that will use it').max(100),
  scopes: z.array(z.enum(tokenScopes)).min(1, 'choose at least one scope').max(tokenScopes.length),
  /** The token acts only for these agents (steps, attempts, runs, keys and holds of their tasks). */
  allowedAgents: limitList(agentName),
  /** The token acts only on these queues (dead letters and redrives). */
  allowedQueues: limitList(queueName),
});

export const revokeApiTokenInput = z.strictObject({ tokenId: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER) });
