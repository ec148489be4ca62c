import { z } from 'zod';
import { errorClasses } from '@holdfast/protocol/enums';
import { agentName, stepName } from '@holdfast/protocol/names';

/** Schemas only (the console's form imports them). A part left out is left as the agent sends it. */

const whole = (minimum: number, maximum: number, unit: string) =>
  z
    .number({ error: 'must be a number' })
    .int(`must be whole ${unit}`)
    .min(minimum, `must be at least ${minimum}`)
    .max(maximum, `must be at most ${maximum.toLocaleString('en-US')}`)
    .optional();

/** The classes a policy may retry: permanent and unknown errors are never retried, whatever the policy. */
export const retriableClasses = errorClasses.filter(
  (errorClass) => errorClass !== 'permanent' && errorClass !== 'unknown',
);

export const saveStepPolicyInput = z
  .strictObject({
    agent: agentName,
    step: stepName,
    maxAttempts: whole(1, 100, 'attempts'),
    retriedClasses: z
      .array(
        z.enum(retriableClasses as [string, ...string[]], { error: `must be among ${retriableClasses.join(', ')}` }),
      )
      .optional(),
    baseDelayMs: whole(0, 3_600_000, 'milliseconds'),
    maxDelayMs: whole(0, 24 * 3_600_000, 'milliseconds'),
    retryAllowance: whole(0, 1_000, 'retries'),
    reason: z.string().trim().min(1, 'say why').max(2_000, 'must be at most 2,000 characters'),
  })
  .superRefine((policy, context) => {
    const base = policy.baseDelayMs;
    const cap = policy.maxDelayMs;
    if (base !== undefined && cap !== undefined && cap < base) {
      context.addIssue({ code: 'custom', path: ['maxDelayMs'], message: 'must be at least the base delay' });
    }
  });
export type SaveStepPolicyInput = z.input<typeof saveStepPolicyInput>;

export const removeStepPolicyInput = z.strictObject({
  agent: agentName,
  step: stepName,
  reason: z.string().trim().min(1, 'say why').max(2_000, 'must be at most 2,000 characters'),
});
export type RemoveStepPolicyInput = z.input<typeof removeStepPolicyInput>;
