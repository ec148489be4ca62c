import { z } from 'zod';

const reason = z
  .string()
  .trim()
  .min(1, 'say why the prices are changed')
  .max(2_000, 'must be at most 2,000 characters');

/** USD per million tokens: a form's blank arrives as undefined and is named, not read as 0. */
const perMillion = z
  .number({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a number') })
  .min(0, 'must be 0 or more')
  .max(100_000, 'must be at most 100,000 $ a million tokens');

/** A cache price may be left out: cached tokens then cost the input price. */
const optionalPerMillion = perMillion.nullable().default(null);

/** The provider as the price table or `gen_ai.provider.name` names it; blank: any provider. */
const provider = z
  .string()
  .trim()
  .max(100, 'must be at most 100 characters')
  .regex(/^[A-Za-z0-9_.:-]*$/, 'letters, digits and _ . : - only (blank: any provider)')
  .transform((value) => value.toLowerCase());

const model = z
  .string()
  .trim()
  .min(1, 'name the model as the provider does, e.g. gpt-4o-mini')
  .max(200, 'must be at most 200 characters')
  .refine((value) => !/\p{Cc}/u.test(value), 'must not contain control characters');

export const savePriceOverrideInput = z.strictObject({
  provider: provider.default(''),
  model,
  inputPerMillion: perMillion,
  outputPerMillion: perMillion,
  cacheReadPerMillion: optionalPerMillion,
  cacheWritePerMillion: optionalPerMillion,
  reason,
});
export type SavePriceOverrideInput = z.input<typeof savePriceOverrideInput>;

export const deletePriceOverrideInput = z.strictObject({ provider: provider.default(''), model, reason });
export type DeletePriceOverrideInput = z.input<typeof deletePriceOverrideInput>;

export const saveRefusedStatusesInput = z.strictObject({
  /** HTTP statuses of a model call refused before generating: it costs 0. */
  statuses: z
    .array(z.number().int('must be whole numbers').min(400, 'must be 4xx or 5xx').max(599, 'must be 4xx or 5xx'))
    .max(200, 'at most 200 statuses')
    .transform((statuses) => [...new Set(statuses)].sort((a, b) => a - b)),
  reason,
});
export type SaveRefusedStatusesInput = z.input<typeof saveRefusedStatusesInput>;
