import { z } from 'zod';
import { deadLetterFilter } from './dead-letter-filter-input';

export const startBulkRedriveInput = z.strictObject({
  /** One id per confirmed run, made by the browser: a double submit starts one run. */
  requestId: z.uuid('must be a UUID'),
  filter: deadLetterFilter,
  reason: z.string().trim().min(1, 'say why').max(2_000),
  ratePerSecond: z
    .number()
    .int()
    .min(1, 'must be at least 1 per second')
    .max(1_000, 'must be at most 1,000 per second')
    .default(20),
});

export const cancelInput = z.strictObject({ bulkRedriveId: z.number().int().min(1) });
