import { calcPrice } from '@pydantic/genai-prices';
import { MAX_ATTEMPT_COST_MICROS } from '@holdfast/protocol/money-limits';
import { type ModelCall, type PricedCost, priceCall } from '../core/pricing/price-call';
import type { PricingRules } from '../core/pricing/pricing-rules';

/**
 * priceCall for a batch of spans, with the price table's rates kept per provider, model and UTC day.
 *
 * On every call the price table works out which of the model's prices applies and checks that
 * price's units against one another before it multiplies (about 14 µs a call: the largest part of
 * mapping an export batch, with the garbage it leaves). For a model whose price is plain rates per
 * million tokens of input, output and cached input (beside prices of units spans never report,
 * which add 0), and stays the same all day (no time-of-day prices, no tiers, no price per request),
 * that work gives the same rates all day: they are kept, and a call is priced
 * from them by the table's own arithmetic, in the table's order (so to the same last bit), then
 * rounded as priceCall rounds. Everything else goes through priceCall itself: a stated cost, a
 * failure the failed-call rule prices (asked of priceCall without the tokens, which is cheap), a
 * model an admin set a price for, tiers, time-of-day prices, other units, a model the table does
 * not know. A kept entry is checked against priceCall on its first call and on one call in 64 after;
 * one that ever differs is dropped for good, and its calls go through priceCall.
 */
const KEPT_UNITS = new Set(['input_mtok', 'output_mtok', 'cache_read_mtok', 'cache_write_mtok']);
const MAX_ENTRIES = 1_000;
const CHECK_EVERY = 64;
const DAY_MS = 86_400_000;

type Rates = [priceKey: string, perMillion: number][];
interface Entry {
  /** Null: this provider and model go through priceCall. */
  rates: Rates | null;
  calls: number;
}
const entries = new Map<string, Entry>();
let dropped = 0;

/** How many providers and models (per day) are priced from kept rates, and how many were dropped after a check. */
export function priceMemoFigures(): { kept: number; dropped: number } {
  let kept = 0;
  for (const entry of entries.values()) if (entry.rates) kept += 1;
  return { kept, dropped };
}

export function priceSpanCall(call: ModelCall, rules: PricingRules): PricedCost {
  const usage = call.usage;
  if (
    call.reportedUsd !== undefined ||
    !call.model ||
    !usage ||
    !plainCount(usage.inputTokens) ||
    !plainCount(usage.outputTokens) ||
    !plainCount(usage.cacheReadInputTokens) ||
    !plainCount(usage.cacheCreationInputTokens) ||
    !(usage.inputTokens || usage.outputTokens || usage.cacheReadInputTokens || usage.cacheCreationInputTokens) ||
    Object.keys(call).some((key) => !CALL_FIELDS.has(key)) ||
    hasOverride(rules, call.model)
  )
    return priceCall(call, rules);
  if (call.failure) {
    // The failed-call rule, as priceCall has it: asked without the tokens, it prices no tokens.
    const ruled = priceCall({ ...call, usage: undefined }, rules);
    if (ruled.source === 'rule') return ruled;
  }
  const key = `${call.provider ?? ''}\n${call.model}\n${Math.floor(call.at.getTime() / DAY_MS)}`;
  let entry = entries.get(key);
  if (!entry) {
    if (entries.size >= MAX_ENTRIES) entries.clear();
    entry = { rates: ratesOf(call), calls: 0 };
    entries.set(key, entry);
  }
  if (!entry.rates) return priceCall(call, rules);
  const priced = priceFromRates(entry.rates, usage);
  entry.calls += 1;
  if (entry.calls === 1 || entry.calls % CHECK_EVERY === 0) {
    const checked = priceCall(call, rules);
    if (checked.source !== priced.source || checked.costMicros !== priced.costMicros) {
      entry.rates = null;
      dropped += 1;
      return checked;
    }
  }
  return priced;
}

/** The fields of a ModelCall this file knows; a call with another one goes through priceCall. */
const CALL_FIELDS = new Set(['reportedUsd', 'usage', 'model', 'provider', 'failure', 'at']);

function plainCount(count: number | undefined): boolean {
  return count === undefined || (Number.isSafeInteger(count) && count >= 0);
}

function hasOverride(rules: PricingRules, model: string): boolean {
  if (rules.overrides.length === 0) return false;
  const wanted = model.toLowerCase();
  return rules.overrides.some((override) => override.model.toLowerCase() === wanted);
}

/** The model's rates that day as the table prices tokens with them, if they are plain rates per million tokens. */
function ratesOf(call: ModelCall): Rates | null {
  const probe = { input_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0, output_tokens: 1 };
  let found: ReturnType<typeof calcPrice>;
  try {
    found =
      (call.provider ? calcPrice(probe, call.model!, { providerId: call.provider, timestamp: call.at }) : null) ??
      calcPrice(probe, call.model!, { timestamp: call.at });
  } catch {
    return null;
  }
  if (!found) return null;
  // Prices that start on a day start at its midnight UTC: the day's price is the same all day. Others do not keep.
  const prices = found.model.prices;
  const allDay =
    !Array.isArray(prices) ||
    prices.every(
      (price) =>
        price.constraint === undefined ||
        (price.constraint.type === 'start_date' && /^\d{4}-\d{2}-\d{2}$/.test(price.constraint.start_date)),
    );
  if (!allDay) return null;
  const rates: Rates = [];
  for (const [priceKey, value] of Object.entries(found.model_price)) {
    if (value === undefined) continue;
    // A price of a unit spans never report (web searches, audio, a cache's lifetime) adds 0 to the table's sums;
    // requests are counted as one a call whatever is reported, so a price per request is not kept.
    if (priceKey === 'requests_kcount') return null;
    if (!KEPT_UNITS.has(priceKey)) continue;
    if (typeof value !== 'number') return null;
    rates.push([priceKey, value]);
  }
  return rates;
}

/**
 * The table's own sum (its `calcPrice` for these four units): each rate times its leaf count (input
 * without the cached tokens that have a rate of their own) over a million, added up input first and
 * output apart in the order of the model's prices, then input plus output; rounded to micro-dollars
 * and kept within the per-attempt limit as priceCall does.
 */
function priceFromRates(rates: Rates, usage: NonNullable<ModelCall['usage']>): PricedCost {
  const cacheRead = usage.cacheReadInputTokens ?? 0;
  const cacheWrite = usage.cacheCreationInputTokens ?? 0;
  const input = usage.inputTokens ?? 0;
  const totalInput = input >= cacheRead + cacheWrite ? input : input + cacheRead + cacheWrite;
  let pricedCached = 0;
  for (const [priceKey] of rates) {
    if (priceKey === 'cache_read_mtok') pricedCached += cacheRead;
    else if (priceKey === 'cache_write_mtok') pricedCached += cacheWrite;
  }
  let inputUsd = 0;
  let outputUsd = 0;
  for (const [priceKey, perMillion] of rates) {
    if (priceKey === 'output_mtok') outputUsd += (perMillion * (usage.outputTokens ?? 0)) / 1_000_000;
    else if (priceKey === 'input_mtok') inputUsd += (perMillion * (totalInput - pricedCached)) / 1_000_000;
    else if (priceKey === 'cache_read_mtok') inputUsd += (perMillion * cacheRead) / 1_000_000;
    else inputUsd += (perMillion * cacheWrite) / 1_000_000;
  }
  const usd = inputUsd + outputUsd + 0;
  return { costMicros: Math.min(Math.max(0, Math.round(usd * 1_000_000)), MAX_ATTEMPT_COST_MICROS), source: 'priced' };
}
