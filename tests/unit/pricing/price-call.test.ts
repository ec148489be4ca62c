import { describe, expect, it } from 'vitest';
import { type ModelCall, priceCall } from '../../../packages/engine/src/core/pricing/price-call';
import {
  DEFAULT_PRICING_RULES,
  type PriceOverride,
  type PricingRules,
} from '../../../packages/engine/src/core/pricing/pricing-rules';

/**
 * The pricing and failed-call rules, case by case. Prices are those of the pinned
 * @pydantic/genai-prices table: gpt-4o 2.50 $ in, 1.25 $ cached in, 10 $ out a million
 * tokens; claude-sonnet-4 3 $ in, 0.30 $ cache read, 3.75 $ cache write, 15 $ out.
 */
const at = new Date('2026-11-30T12:00:00Z');
const gpt4o = { model: 'gpt-4o', provider: 'openai', at } as const;
const sonnet = { model: 'claude-sonnet-4-20250514', provider: 'anthropic', at } as const;

const cases: { name: string; call: ModelCall; costMicros: number; source: string }[] = [
  { name: 'a stated cost, as stated', call: { ...gpt4o, reportedUsd: 0.0123 }, costMicros: 12_300, source: 'reported' },
  {
    name: 'tokens priced by the table',
    call: { ...gpt4o, usage: { inputTokens: 1_000, outputTokens: 100 } },
    costMicros: 3_500,
    source: 'priced',
  },
  {
    name: 'cached input tokens at their own rate (inside input_tokens, as the conventions count them)',
    call: { ...gpt4o, usage: { inputTokens: 1_000, cacheReadInputTokens: 800, outputTokens: 100 } },
    costMicros: 2_500,
    source: 'priced',
  },
  {
    name: 'cache writes and reads counted apart from input, as Anthropic reports them',
    call: { ...sonnet, usage: { inputTokens: 5, cacheCreationInputTokens: 4_735, outputTokens: 255 } },
    // 5 x 3 + 4,735 x 3.75 + 255 x 15, a million tokens each.
    costMicros: Math.round(5 * 3 + 4_735 * 3.75 + 255 * 15),
    source: 'priced',
  },
  {
    name: 'a provider the conventions name otherwise falls back to the model name',
    call: { ...gpt4o, provider: 'azure.ai.inference', usage: { inputTokens: 1_000, outputTokens: 100 } },
    costMicros: 3_500,
    source: 'priced',
  },
  {
    name: 'a 429 costs 0, whatever the client counted',
    call: { ...gpt4o, usage: { inputTokens: 1_000 }, failure: { httpStatus: 429, errorClass: 'rate_limited' } },
    costMicros: 0,
    source: 'rule',
  },
  {
    name: 'a rate limit without a status costs 0 too',
    call: { ...gpt4o, usage: { inputTokens: 1_000 }, failure: { errorClass: 'rate_limited' } },
    costMicros: 0,
    source: 'rule',
  },
  {
    name: 'a 401 or a 400 costs 0, even with a stated cost',
    call: { ...gpt4o, reportedUsd: 0.5, failure: { httpStatus: 400, errorClass: 'permanent' } },
    costMicros: 0,
    source: 'rule',
  },
  {
    name: 'a stream cut short by a 503 costs the tokens it reported',
    call: {
      ...gpt4o,
      usage: { inputTokens: 1_000, outputTokens: 50 },
      failure: { httpStatus: 503, errorClass: 'transient' },
    },
    costMicros: 3_000,
    source: 'priced',
  },
  {
    name: 'an unknown model: none, 0',
    call: { model: 'no-such-model-v9', provider: 'openai', usage: { inputTokens: 1_000 }, at },
    costMicros: 0,
    source: 'none',
  },
  { name: 'no cost and no tokens: none, 0', call: { ...gpt4o }, costMicros: 0, source: 'none' },
  {
    name: 'a failed tool call names no model: none, not a rule',
    call: { at, failure: { httpStatus: 404, errorClass: 'permanent' } },
    costMicros: 0,
    source: 'none',
  },
];

describe('priceCall', () => {
  it.each(cases)('$name: $costMicros micro-dollars, $source', ({ call, costMicros, source }) => {
    expect(priceCall(call)).toEqual({ costMicros, source });
  });
});

/** A negotiated price: 2 $ in, 8 $ out a million tokens for gpt-4o from openai; cached input unset. */
const negotiated: PriceOverride = {
  provider: 'openai',
  model: 'gpt-4o',
  inputPerMillion: 2,
  outputPerMillion: 8,
  cacheReadPerMillion: null,
  cacheWritePerMillion: null,
};
const withOverrides = (...overrides: PriceOverride[]): PricingRules => ({ ...DEFAULT_PRICING_RULES, overrides });

const ruleCases: { name: string; call: ModelCall; rules: PricingRules; costMicros: number; source: string }[] = [
  {
    name: "an admin's override wins over the table",
    call: { ...gpt4o, usage: { inputTokens: 1_000, outputTokens: 100 } },
    rules: withOverrides(negotiated),
    costMicros: 1_000 * 2 + 100 * 8,
    source: 'priced',
  },
  {
    name: 'cached input at the input price when the override sets no cache price',
    call: { ...gpt4o, usage: { inputTokens: 1_000, cacheReadInputTokens: 800, outputTokens: 0 } },
    rules: withOverrides(negotiated),
    costMicros: 2_000,
    source: 'priced',
  },
  {
    name: "cache reads and writes at the override's own prices",
    call: { ...sonnet, usage: { inputTokens: 5, cacheReadInputTokens: 1_000, cacheCreationInputTokens: 2_000 } },
    rules: withOverrides({
      ...negotiated,
      provider: 'anthropic',
      model: 'claude-sonnet-4-20250514',
      cacheReadPerMillion: 0.5,
      cacheWritePerMillion: 4,
    }),
    // 5 uncached x 2 + 1,000 x 0.5 + 2,000 x 4 (Anthropic reports the cached tokens apart from input).
    costMicros: 5 * 2 + 500 + 8_000,
    source: 'priced',
  },
  {
    name: "an override for any provider ('') serves a provider with none of its own",
    call: { ...gpt4o, provider: 'azure', usage: { inputTokens: 1_000 } },
    rules: withOverrides({ ...negotiated, provider: '', inputPerMillion: 1 }),
    costMicros: 1_000,
    source: 'priced',
  },
  {
    name: "one for the call's provider wins over one for any",
    call: { ...gpt4o, usage: { inputTokens: 1_000 } },
    rules: withOverrides({ ...negotiated, provider: '', inputPerMillion: 1 }, negotiated),
    costMicros: 2_000,
    source: 'priced',
  },
  {
    name: 'an override for another model leaves the table',
    call: { ...gpt4o, usage: { inputTokens: 1_000, outputTokens: 100 } },
    rules: withOverrides({ ...negotiated, model: 'gpt-4o-mini' }),
    costMicros: 3_500,
    source: 'priced',
  },
  {
    name: 'an override prices a model the table does not know',
    call: { model: 'in-house-7b', provider: 'self', usage: { inputTokens: 1_000_000 }, at },
    rules: withOverrides({ ...negotiated, provider: 'self', model: 'in-house-7b', inputPerMillion: 0.1 }),
    costMicros: 100_000,
    source: 'priced',
  },
  {
    name: 'a status taken off the refused list is charged for its tokens',
    call: { ...gpt4o, usage: { inputTokens: 1_000 }, failure: { httpStatus: 400, errorClass: 'permanent' } },
    rules: { ...DEFAULT_PRICING_RULES, refusedStatuses: new Set([429]) },
    costMicros: 2_500,
    source: 'priced',
  },
  {
    name: 'a status added to the refused list costs 0',
    call: { ...gpt4o, usage: { inputTokens: 1_000 }, failure: { httpStatus: 529, errorClass: 'transient' } },
    rules: { ...DEFAULT_PRICING_RULES, refusedStatuses: new Set([429, 529]) },
    costMicros: 0,
    source: 'rule',
  },
];

describe('priceCall with the stored rules', () => {
  it.each(ruleCases)('$name: $costMicros micro-dollars, $source', ({ call, rules, costMicros, source }) => {
    expect(priceCall(call, rules)).toEqual({ costMicros, source });
  });
});
