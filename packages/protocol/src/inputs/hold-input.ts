import { z } from 'zod';
import { holdItemTypes, holdReasons, holdResolutions } from '../enums';

/** `person:<email>` or `team:<name>`: every hold has someone who will look at it. */
export const holdOwner = z
  .string()
  .trim()
  .regex(/^(person|team):\S.*$/, 'must name a person (person:<email>) or a team (team:<name>)')
  .max(200);

export const holdId = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

/** A hold's detail is at most this long; texts it is built from are cut to it (cutToLength), never refused. */
export const MAX_HOLD_DETAIL = 5_000;

export const openHoldInput = z
  .strictObject({
    itemType: z.enum(holdItemTypes),
    itemId: z.string().trim().min(1).max(300),
    reason: z.enum(holdReasons),
    detail: z.string().trim().min(1, 'must say what a person needs to know to decide').max(MAX_HOLD_DETAIL),
    owner: holdOwner,
  })
  .refine((hold) => hold.itemType !== 'dead_letter' || /^\d+$/.test(hold.itemId), {
    path: ['itemId'],
    message: 'must be the number of a dead letter for a dead_letter hold',
  });

export const clearHoldInput = z.strictObject({
  holdId,
  resolution: z.enum(holdResolutions),
  note: z.string().trim().min(1, 'say why the hold is cleared this way').max(5_000),
});

export const clearHoldsInput = z.strictObject({
  holdIds: z.array(holdId).min(1, 'select at least one hold').max(500, 'clear at most 500 holds at once'),
  resolution: z.enum(holdResolutions),
  note: z.string().trim().min(1, 'say why the holds are cleared this way').max(5_000),
});

export const reassignHoldInput = z.strictObject({
  holdId,
  owner: holdOwner,
  note: z.string().trim().min(1, 'say why the hold changes owner').max(5_000),
});
