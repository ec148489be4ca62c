import { z } from 'zod';
import { holdReasons } from './db/schema';

const optionalText = z
  .string()
  .trim()
  .max(200)
  .optional()
  .transform((value) => (value === '' ? undefined : value));
const flag = z
  .enum(['1', ''])
  .optional()
  .transform((value) => value === '1');

/** The Holds page's filters, as the URL carries them (so a view can be shared). */
export const holdsFilter = z.strictObject({
  /** Open holds (the default) or the cleared ones, with who cleared them, when and why. */
  view: z.enum(['open', 'cleared']).default('open'),
  /** Only holds owned by the person or one of their teams. */
  mine: flag,
  owner: optionalText,
  reason: z
    .enum(holdReasons)
    .optional()
    .or(z.literal('').transform(() => undefined)),
  /** Only frozen holds: reason `frozen`, or open longer than the frozen threshold. */
  frozen: flag,
  /** Only holds waiting at least this many hours. */
  minAgeHours: z
    .string()
    .trim()
    .optional()
    .transform((value, context) => {
      if (!value) return undefined;
      const hours = Number(value);
      if (!Number.isFinite(hours) || hours < 0 || hours > 24 * 3_650) {
        context.addIssue({ code: 'custom', message: 'must be a number of hours' });
        return z.NEVER;
      }
      return hours;
    }),
});

export type HoldsFilter = z.output<typeof holdsFilter>;

/** How a hold's waiting time reads in the table. */
export function holdAge(since: Date, now: Date): string {
  const hours = Math.floor((now.getTime() - since.getTime()) / 3_600_000);
  return hours < 1 ? 'under an hour' : hours < 48 ? `${hours} h` : `${Math.floor(hours / 24)} d`;
}
