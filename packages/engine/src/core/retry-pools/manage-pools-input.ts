import { z } from 'zod';
import { ALL_STEPS, agentName, poolStepName } from '@holdfast/protocol/names';

const reason = z.string().trim().min(1, 'say why the pool is changed').max(2_000, 'must be at most 2,000 characters');

/** A bounded number; a form's blank or unreadable value arrives as undefined or NaN and is named, not read as 0. */
const bounded = (minimum: number, maximum: number) =>
  z
    .number({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a number') })
    .min(minimum, `must be at least ${minimum}`)
    .max(maximum, `must be at most ${maximum}`);

export const saveRetryPoolInput = z.strictObject({
  agent: agentName,
  /** One step, or `*` (the default) for every step of the agent. */
  step: poolStepName.default(ALL_STEPS),
  /** Retries allowed as a percentage of first attempts in the window (100 = one retry per first attempt). */
  budgetPercent: bounded(0, 1_000),
  /** A floor for quiet periods: this many retries per second of the window are allowed whatever the first attempts. */
  minRetriesPerSecond: bounded(0, 1_000),
  /** The sliding window the pool counts over, in whole seconds. */
  windowSeconds: bounded(10, 86_400).int('must be whole seconds'),
  reason,
});
export type SaveRetryPoolInput = z.input<typeof saveRetryPoolInput>;
export type SaveRetryPoolRequest = z.output<typeof saveRetryPoolInput>;

export const deleteRetryPoolInput = z.strictObject({
  poolId: z.number({ error: 'must be a pool id' }).int('must be a pool id').min(1, 'must be a pool id'),
  reason,
});
export type DeleteRetryPoolInput = z.input<typeof deleteRetryPoolInput>;
