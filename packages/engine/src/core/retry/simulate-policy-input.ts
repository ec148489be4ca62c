import { z } from 'zod';
import { agentName, stepName } from '@holdfast/protocol/names';
import { retriableClasses } from '@holdfast/protocol/inputs/step-policy-input';

/** Schemas only (the console's form and the API import them). */
export const simulatePolicyInput = z
  .strictObject({
    agent: agentName,
    step: stepName,
    /** The window replayed: attempts that started in [from, to). */
    from: z.coerce.date({ error: 'must be a date and time' }),
    to: z.coerce.date({ error: 'must be a date and time' }),
    /** The policy tried: at most this many attempts of the step per task... */
    maxAttempts: z
      .number({ error: 'must be a number' })
      .int('must be whole attempts')
      .min(1, 'must be at least 1')
      .max(100, 'must be at most 100'),
    /** ...retrying only these classes (permanent and unknown errors are never retried). */
    retriedClasses: z
      .array(
        z.enum(retriableClasses as [string, ...string[]], { error: `must be among ${retriableClasses.join(', ')}` }),
      )
      .default([...retriableClasses]),
  })
  .superRefine((input, context) => {
    if (input.to <= input.from) context.addIssue({ code: 'custom', path: ['to'], message: 'must be after from' });
  });
export type SimulatePolicyInput = z.input<typeof simulatePolicyInput>;
