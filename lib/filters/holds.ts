import { z } from 'zod';
import { withoutNul } from '@holdfast/engine/core';
import { optionalNumber, optionalText } from '@holdfast/protocol/validation';
import { holdReasons } from '@holdfast/protocol/enums';
import { keysetCursorParam } from './keyset-cursor';

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
  owner: withoutNul(optionalText(200)),
  reason: z
    .enum(holdReasons)
    .optional()
    .or(z.literal('').transform(() => undefined)),
  /** Only frozen holds: reason `frozen`, or open longer than the frozen threshold. */
  frozen: flag,
  /** Only holds waiting at least this many hours. */
  minAgeHours: optionalNumber(24 * 3_650),
  /** The page after this hold, or before it (keyset paging on the list's order). */
  after: keysetCursorParam('bigint'),
  before: keysetCursorParam('bigint'),
});

export type HoldsFilter = z.output<typeof holdsFilter>;
