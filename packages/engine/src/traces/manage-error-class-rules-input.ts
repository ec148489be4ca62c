import { z } from 'zod';
import { errorClasses } from '@holdfast/protocol/enums';

const status = z
  .number()
  .int('must be a whole number')
  .min(100, 'must be an HTTP status')
  .max(599, 'must be an HTTP status');

const word = z
  .string()
  .trim()
  .min(1, 'must not be blank')
  .max(100, 'must be at most 100 characters')
  .refine((value) => !/\p{Cc}/u.test(value), 'must not contain control characters');

/** One rule as an admin writes it: an HTTP status range, or words `error.type` may contain. */
export const errorClassRuleInput = z.discriminatedUnion('when', [
  z
    .strictObject({ when: z.literal('status'), from: status, to: status, errorClass: z.enum(errorClasses) })
    .refine((rule) => rule.to >= rule.from, { path: ['to'], message: 'must not be below the first status' }),
  z.strictObject({
    when: z.literal('words'),
    words: z.array(word).min(1, 'name at least one word').max(20, 'at most 20 words'),
    errorClass: z.enum(errorClasses),
  }),
]);
export type ErrorClassRuleInput = z.input<typeof errorClassRuleInput>;

export const saveErrorClassRulesInput = z.strictObject({
  /** The whole table, in order: the first rule that matches a failed span's error decides its class. */
  rules: z.array(errorClassRuleInput).max(50, 'at most 50 rules'),
  /**
   * The fingerprint of the rules the admin edited (readErrorClassRules + rulesFingerprint): if another admin
   * saved in between, the save is refused rather than overwriting their change unseen.
   */
  basedOn: z.string().max(100).optional(),
  reason: z.string().trim().min(1, 'say why the rules are changed').max(2_000, 'must be at most 2,000 characters'),
});
export type SaveErrorClassRulesInput = z.input<typeof saveErrorClassRulesInput>;
