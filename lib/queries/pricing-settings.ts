import 'server-only';
import { asc, sql } from 'drizzle-orm';
import { readPricingRules } from '@holdfast/engine/core';
import type { Executor } from '@holdfast/engine/db';
import { priceOverrides } from '@holdfast/engine/db/schema';
import { type ErrorClassRule, readErrorClassRules } from '@holdfast/engine/traces';
import { rulesFingerprint } from '@holdfast/engine/traces';

/** An admin's price override as Settings, Costs and errors lists it: the prices and who set them when. */
export interface PriceOverrideRow {
  /** '' matches the model from any provider. */
  provider: string;
  model: string;
  inputPerMillion: number;
  outputPerMillion: number;
  /** Null: cached tokens cost the input price. */
  cacheReadPerMillion: number | null;
  cacheWritePerMillion: number | null;
  updatedBy: string;
  updatedAt: Date;
}

export interface PricingSettings {
  overrides: PriceOverrideRow[];
  /** The failed-call rule's HTTP statuses, ascending. */
  refusedStatuses: number[];
  /** The span error class rules, first match first. */
  errorClassRules: ErrorClassRule[];
  /** What an edit of the rules is based on: a save is refused if the stored table no longer has it. */
  errorClassRulesFingerprint: string;
}

/** Every override, any-provider ones first (provider ''), then by provider and model. */
export async function listPriceOverrides(db: Executor): Promise<PriceOverrideRow[]> {
  return db
    .select({
      provider: priceOverrides.provider,
      model: priceOverrides.model,
      // numeric(14, 6) fits a float8 exactly enough: at most 14 significant digits.
      inputPerMillion: sql<number>`${priceOverrides.inputPerMillion}::float8`,
      outputPerMillion: sql<number>`${priceOverrides.outputPerMillion}::float8`,
      cacheReadPerMillion: sql<number | null>`${priceOverrides.cacheReadPerMillion}::float8`,
      cacheWritePerMillion: sql<number | null>`${priceOverrides.cacheWritePerMillion}::float8`,
      updatedBy: priceOverrides.updatedBy,
      updatedAt: priceOverrides.updatedAt,
    })
    .from(priceOverrides)
    .orderBy(asc(priceOverrides.provider), asc(priceOverrides.model));
}

/**
 * What Settings, Costs and errors shows and edits. Pass the primary: an admin's edit of the rules is
 * based on the fingerprint read here, and one read from a lagging replica would make the save a conflict.
 */
export async function readPricingSettings(db: Executor): Promise<PricingSettings> {
  const [overrides, rules, errorClassRules] = await Promise.all([
    listPriceOverrides(db),
    readPricingRules(db),
    readErrorClassRules(db),
  ]);
  return {
    overrides,
    refusedStatuses: [...rules.refusedStatuses].sort((a, b) => a - b),
    errorClassRules,
    errorClassRulesFingerprint: rulesFingerprint(errorClassRules),
  };
}
