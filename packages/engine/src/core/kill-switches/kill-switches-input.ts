import { z } from 'zod';

/** The switches Holdfast knows; engaged means the behaviour is stopped. */
export const killSwitchNames = ['stale_lock_release'] as const;
export type KillSwitchName = (typeof killSwitchNames)[number];

export const setKillSwitchInput = z.strictObject({
  name: z.enum(killSwitchNames),
  engaged: z.boolean(),
  reason: z.string().trim().min(1, 'say why the switch is flipped').max(2_000),
});
