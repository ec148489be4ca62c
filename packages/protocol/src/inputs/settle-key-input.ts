import { z } from 'zod';
import { errorClasses } from '../enums';

const MAX_RESULT_BYTES = 256 * 1024;

const settleTarget = {
  key: z.string().trim().min(1).max(500),
  fencingToken: z.number().int().min(1),
};

export const completeKeyInput = z.strictObject({
  ...settleTarget,
  /** The operation's result, returned to every duplicate from now on. */
  result: z
    .unknown()
    .refine((value) => value !== undefined, 'is required (use null for "no result")')
    .refine(
      (value) => (JSON.stringify(value) ?? '').length <= MAX_RESULT_BYTES,
      `must serialise to at most ${MAX_RESULT_BYTES / 1024} KiB`,
    ),
});

export const failKeyInput = z.strictObject({
  ...settleTarget,
  errorClass: z.enum(errorClasses),
  errorText: z.string().trim().min(1, 'must not be blank').max(10_000),
});
