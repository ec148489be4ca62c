import { type PricingRules, DEFAULT_PRICING_RULES, storedPricingRules } from '../core/pricing/pricing-rules';
import { cachedPerDatabase } from '../core/pricing/rules-cache';
import type { Executor } from '../db/client';
import { DEFAULT_ERROR_CLASS_RULES, type ErrorClassRule, readErrorClassRules } from './error-class-rules';

/**
 * Everything that decides how a span becomes an attempt besides the span: which operations count
 * (HOLDFAST_TRACES_OPERATIONS), the error class rules and the pricing rules (both edited by admins).
 */
export interface SpanMappingRules {
  countedOperations: ReadonlySet<string>;
  errorClassRules: readonly ErrorClassRule[];
  pricing: PricingRules;
}

/**
 * The GenAI conventions' operations that are model or tool calls. An agent's turn (`invoke_agent`) is a run of
 * its agent, never a step (span-runs.ts).
 */
export const DEFAULT_COUNTED_OPERATIONS = [
  'chat',
  'text_completion',
  'generate_content',
  'embeddings',
  'execute_tool',
] as const;

export const DEFAULT_SPAN_MAPPING_RULES: SpanMappingRules = {
  countedOperations: new Set(DEFAULT_COUNTED_OPERATIONS),
  errorClassRules: DEFAULT_ERROR_CLASS_RULES,
  pricing: DEFAULT_PRICING_RULES,
};

const storedErrorClassRules = cachedPerDatabase(readErrorClassRules);

/** The rules in force: the stored ones (read at most every few seconds) and the configured operations. */
export async function spanMappingRules(
  db: Executor,
  countedOperations: ReadonlySet<string>,
): Promise<SpanMappingRules> {
  const [errorClassRules, pricing] = await Promise.all([storedErrorClassRules.get(db), storedPricingRules.get(db)]);
  return { countedOperations, errorClassRules, pricing };
}

/** After an admin's edit: this instance reads the rules again at once (others within a few seconds). */
export function forgetStoredRules(db: Executor): void {
  storedErrorClassRules.forget(db);
  storedPricingRules.forget(db);
}
