import { z } from 'zod';

/** A token count as a provider reports it: a whole number, bounded so sums stay exact. */
const tokenCount = z.number().int().min(0).max(1_000_000_000, 'must be at most 1,000,000,000 tokens');

/**
 * What an attempt may report instead of its cost: the model call's token counts and model, which
 * Holdfast prices (price-call.ts), and the HTTP status of a failed call, for the failed-call rule.
 * Shared by the attempts API and the step protocol's finish.
 */
export const modelUsageFields = {
  /** Token counts as the GenAI conventions name them; input includes the cached parts. */
  usage: z
    .strictObject({
      inputTokens: tokenCount.optional(),
      outputTokens: tokenCount.optional(),
      cacheReadInputTokens: tokenCount.optional(),
      cacheCreationInputTokens: tokenCount.optional(),
    })
    .optional(),
  /** The model as the provider names it (e.g. gpt-4o-mini, claude-sonnet-4-5). */
  model: z.string().trim().min(1).max(200).optional(),
  /** The provider as the price table names it (openai, anthropic, google, ...). */
  provider: z.string().trim().min(1).max(100).optional(),
  /** A failed call's HTTP status: one the provider refused before generating costs nothing. */
  httpStatus: z.number().int().min(100).max(599).optional(),
};

export type ModelUsageReport = {
  [field in keyof typeof modelUsageFields]?: z.output<(typeof modelUsageFields)[field]>;
};
