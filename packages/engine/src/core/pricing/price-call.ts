import { calcPrice } from '@pydantic/genai-prices';
import type { CostSource, ErrorClass } from '@holdfast/protocol/enums';
import { MAX_ATTEMPT_COST_MICROS } from '@holdfast/protocol/money-limits';
import { DEFAULT_PRICING_RULES, overrideFor, type PriceOverride, type PricingRules } from './pricing-rules';

/**
 * Where an attempt's cost came from:
 * - `reported`: the caller stated it (a cost in the report, `gen_ai.usage.cost.amount` on a span);
 * - `priced`: its token counts times the price table (@pydantic/genai-prices, bundled data: no
 *   look-up leaves the machine), for its provider and model at the attempt's start;
 * - `rule`: a failed-call rule set it (a call refused before any generation costs 0);
 * - `none`: nothing to go on (no cost, no tokens, or a model the table does not know): 0.
 */
export { type CostSource, costSources } from '@holdfast/protocol/enums';

/** Token counts as the GenAI conventions name them: input includes the cached parts. */
export interface TokenUsage {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadInputTokens?: number;
  cacheCreationInputTokens?: number;
}

export interface ModelCall {
  /** A cost the caller stated, in USD. */
  reportedUsd?: number;
  usage?: TokenUsage;
  model?: string;
  /** The provider's id as the price table names it (openai, anthropic, google, ...): `gen_ai.provider.name`. */
  provider?: string;
  /** Set when the call failed: its HTTP status if known. */
  failure?: { httpStatus?: number; errorClass: ErrorClass };
  at: Date;
}

export interface PricedCost {
  costMicros: number;
  source: CostSource;
}

/** `gen_ai.provider.name` values whose price-table id differs. */
const PRICE_TABLE_PROVIDERS: Record<string, string> = {
  'gcp.gemini': 'google',
  'gcp.vertex_ai': 'google',
  'gcp.gen_ai': 'google',
  'aws.bedrock': 'aws',
  'azure.ai.openai': 'azure',
  'azure.ai.inference': 'azure',
  x_ai: 'x-ai',
};

/**
 * The failed-call rule, then the reported cost, then an admin's price override, then the price
 * table. The rule: a model call refused before the model generated anything (its HTTP status is one
 * of the rules' refused statuses, by default 400, 401, 403, 404, 413, 422 and 429; or a rate limit
 * with no status) costs 0, whatever tokens a client counted: providers do not bill it. A failure
 * that is not a refusal (a 5xx, a timeout, a stream cut short) is charged for the tokens it reports:
 * providers bill what they generated before the cut.
 */
export function priceCall(call: ModelCall, rules: PricingRules = DEFAULT_PRICING_RULES): PricedCost {
  // A refused model call costs nothing; a tool or anything else that names no model has nothing to price.
  const modelCall = call.model !== undefined || call.reportedUsd !== undefined || (call.usage && hasTokens(call.usage));
  if (call.failure && modelCall && refusedBeforeGeneration(call.failure, rules))
    return { costMicros: 0, source: 'rule' };
  if (call.reportedUsd !== undefined) return { costMicros: toMicros(call.reportedUsd), source: 'reported' };
  const usage = call.usage;
  if (!usage || !call.model || !hasTokens(usage)) return { costMicros: 0, source: 'none' };
  const cacheRead = usage.cacheReadInputTokens ?? 0;
  const cacheWrite = usage.cacheCreationInputTokens ?? 0;
  // The conventions count cached tokens inside input_tokens; an instrumentation that follows a
  // provider's API where they are apart (Anthropic's) reports fewer input tokens than cached ones.
  const input = usage.inputTokens ?? 0;
  const totalInput = input >= cacheRead + cacheWrite ? input : input + cacheRead + cacheWrite;
  const tokens = {
    input_tokens: totalInput,
    cache_read_tokens: cacheRead,
    cache_write_tokens: cacheWrite,
    output_tokens: usage.outputTokens ?? 0,
  };
  const provider = call.provider ? (PRICE_TABLE_PROVIDERS[call.provider] ?? call.provider) : undefined;
  const override = overrideFor(rules, [call.provider ?? '', provider ?? ''].filter(Boolean), call.model);
  if (override) return { costMicros: toMicros(overridePriceUsd(override, tokens)), source: 'priced' };
  // A provider the table names otherwise (or not at all): the model's name alone often finds it.
  const priced =
    (provider ? calcPrice(tokens, call.model, { providerId: provider, timestamp: call.at }) : null) ??
    calcPrice(tokens, call.model, { timestamp: call.at });
  if (!priced) return { costMicros: 0, source: 'none' };
  return { costMicros: toMicros(priced.total_price), source: 'priced' };
}

function refusedBeforeGeneration(failure: NonNullable<ModelCall['failure']>, rules: PricingRules): boolean {
  if (failure.httpStatus !== undefined) return rules.refusedStatuses.has(failure.httpStatus);
  return failure.errorClass === 'rate_limited';
}

/** Tokens at an override's prices: cached input at the cache prices (the input price when unset), the rest at the input price. */
function overridePriceUsd(
  override: PriceOverride,
  tokens: { input_tokens: number; cache_read_tokens: number; cache_write_tokens: number; output_tokens: number },
): number {
  const uncached = Math.max(0, tokens.input_tokens - tokens.cache_read_tokens - tokens.cache_write_tokens);
  const perMillion =
    uncached * override.inputPerMillion +
    tokens.cache_read_tokens * (override.cacheReadPerMillion ?? override.inputPerMillion) +
    tokens.cache_write_tokens * (override.cacheWritePerMillion ?? override.inputPerMillion) +
    tokens.output_tokens * override.outputPerMillion;
  return perMillion / 1_000_000;
}

function hasTokens(usage: TokenUsage): boolean {
  return [usage.inputTokens, usage.outputTokens, usage.cacheReadInputTokens, usage.cacheCreationInputTokens].some(
    (count) => count !== undefined && count > 0,
  );
}

/** USD as micro-dollars, rounded to the nearest, within the per-attempt limit. */
function toMicros(usd: number): number {
  return Math.min(Math.max(0, Math.round(usd * 1_000_000)), MAX_ATTEMPT_COST_MICROS);
}
