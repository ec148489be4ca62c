import { z } from 'zod';

/** Schemas only (the console's form imports them). */

const wholeNumber = (minimum: number, maximum: number, unit: string) =>
  z
    .number({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a number') })
    .int(`must be whole ${unit}`)
    .min(minimum, `must be at least ${minimum}`)
    .max(maximum, `must be at most ${maximum.toLocaleString('en-US')}`);

export const breakerSettingsInput = z.strictObject({
  /** The sliding window failures are counted over. */
  windowSeconds: wholeNumber(10, 3_600, 'seconds'),
  /** A breaker opens when at least this share of the window's attempts failed as the downstream failing (percent). */
  failurePercent: z
    .number({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a number') })
    .gt(0, 'must be above 0')
    .max(100, 'must be at most 100'),
  /** ...and the window holds at least this many attempts (a quiet step never opens on two failures). */
  minimumVolume: wholeNumber(1, 1_000_000, 'attempts'),
  /** How long an open breaker turns begins away before the first probe. */
  coolDownSeconds: wholeNumber(1, 3_600, 'seconds'),
  /** How many probe attempts a half-open breaker lets through at a time. */
  probes: wholeNumber(1, 100, 'probes'),
  reason: z.string().trim().min(1, 'say why').max(2_000, 'must be at most 2,000 characters'),
});
export type BreakerSettingsInput = z.input<typeof breakerSettingsInput>;
