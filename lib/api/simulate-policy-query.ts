import { z } from 'zod';
import { agentName, stepName } from '@holdfast/protocol/names';

/**
 * GET /api/v1/steps/simulate's query string: the simulator's input as URL
 * parameters (numbers as text, the classes comma-separated), handed on to the
 * library, which validates each field again and names what is wrong.
 */
export const simulatePolicyQuery = z.strictObject({
  agent: agentName,
  step: stepName,
  from: z.string().describe('ISO 8601; within the raw retention'),
  to: z.string().describe('ISO 8601; after from'),
  maxAttempts: z.coerce.number({ error: 'must be a number' }),
  retriedClasses: z
    .string()
    .optional()
    .transform((classes) => (classes === undefined ? undefined : classes.split(',').filter((each) => each !== '')))
    .describe('Comma-separated: transient, timeout, rate_limited, invalid_output (default: all four)'),
});
