import { describe, expect, it } from 'vitest';
import { type ModelCall, priceCall } from '../../../packages/engine/src/core/pricing/price-call';
import { DEFAULT_PRICING_RULES, type PricingRules } from '../../../packages/engine/src/core/pricing/pricing-rules';
import { priceMemoFigures, priceSpanCall } from '../../../packages/engine/src/traces/price-memo';

/**
 * The span path's price memo gives priceCall's answer, to the micro-dollar and the source, for every
 * kind of call: plain rates kept per day, cached tokens (as the conventions and as Anthropic count
 * them), tiers and time-of-day prices (never kept), prices that changed on a date, failures the rule
 * prices and failures it does not, stated costs, unknown models, admins' overrides, odd counts.
 */
function randomSource(seed: number) {
  let state = seed;
  const next = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  return {
    int: (below: number) => Math.floor(next() * below),
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!,
  };
}

const MODELS: [provider: string | undefined, model: string][] = [
  ['openai', 'gpt-4o'],
  ['openai', 'gpt-4o-mini'],
  ['openai', 'gpt-4.1'],
  ['anthropic', 'claude-3-5-sonnet-20241022'],
  ['anthropic', 'claude-sonnet-4-20250514'],
  ['anthropic', 'claude-opus-4-6'],
  ['gcp.gemini', 'gemini-2.5-pro'],
  ['google', 'gemini-2.0-flash'],
  ['deepseek', 'deepseek-chat'],
  ['aws.bedrock', 'anthropic.claude-3-haiku-20240307-v1:0'],
  [undefined, 'gpt-4o'],
  ['openai', 'no-such-model'],
  ['no-such-provider', 'gpt-4o-mini'],
];

const FAILURES: ModelCall['failure'][] = [
  undefined,
  undefined,
  undefined,
  { httpStatus: 429, errorClass: 'rate_limited' },
  { httpStatus: 503, errorClass: 'transient' },
  { errorClass: 'rate_limited' },
  { errorClass: 'timeout' },
];

function randomCall(random: ReturnType<typeof randomSource>): ModelCall {
  const [provider, model] = random.pick(MODELS);
  const input = random.pick([0, 1, 7, 999, 1_001, 5_000, 150_000, 250_000]) + random.int(3_000);
  const cached = random.pick([0, 0, 100, 2_048, input + 10]);
  const call: ModelCall = {
    usage: {
      inputTokens: input,
      outputTokens: random.pick([0, 1, 33, 250 + random.int(900)]),
      cacheReadInputTokens: random.pick([undefined, 0, cached]),
      cacheCreationInputTokens: random.pick([undefined, 0, random.int(500)]),
    },
    model,
    provider,
    failure: random.pick(FAILURES),
    // Over two years, at any hour: prices that changed on a date, and prices by the time of day.
    at: new Date(Date.UTC(2025, 0, 1) + random.int(730 * 24) * 3_600_000 + random.int(3_600_000)),
  };
  if (random.int(20) === 0) call.reportedUsd = random.int(1_000) / 1_000;
  return call;
}

describe('priceSpanCall', () => {
  it('gives priceCall’s cost and source for 20,000 random calls', () => {
    const random = randomSource(7);
    for (let index = 0; index < 20_000; index += 1) {
      const call = randomCall(random);
      expect(priceSpanCall(call, DEFAULT_PRICING_RULES), JSON.stringify(call)).toEqual(
        priceCall(call, DEFAULT_PRICING_RULES),
      );
    }
    // Plain rates were kept (and used: a check that ever differed would have dropped its entry).
    expect(priceMemoFigures().kept).toBeGreaterThan(100);
    expect(priceMemoFigures().dropped).toBe(0);
  });

  it('follows the rules it is given: refused statuses and an admin’s price override', () => {
    const rules: PricingRules = {
      refusedStatuses: new Set([503]),
      overrides: [
        {
          provider: '',
          model: 'GPT-4o',
          inputPerMillion: 1,
          outputPerMillion: 2,
          cacheReadPerMillion: null,
          cacheWritePerMillion: null,
        },
      ],
    };
    const random = randomSource(11);
    for (let index = 0; index < 2_000; index += 1) {
      const call = randomCall(random);
      expect(priceSpanCall(call, rules), JSON.stringify(call)).toEqual(priceCall(call, rules));
    }
    expect(priceMemoFigures().dropped).toBe(0);
  });

  it('leaves odd counts to priceCall', () => {
    const at = new Date(Date.UTC(2026, 5, 1));
    for (const usage of [
      { inputTokens: 0, outputTokens: 0 },
      { inputTokens: 1.5, outputTokens: 2 },
      { inputTokens: 2 ** 60, outputTokens: 1 },
      {},
    ]) {
      const call: ModelCall = { usage, model: 'gpt-4o', provider: 'openai', at };
      expect(priceSpanCall(call, DEFAULT_PRICING_RULES)).toEqual(priceCall(call, DEFAULT_PRICING_RULES));
    }
  });
});
