import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { cachedPerDatabase } from './rules-cache';

/** An admin's price for a provider and model, in USD per million tokens; '' as provider matches any. */
export interface PriceOverride {
  provider: string;
  model: string;
  inputPerMillion: number;
  outputPerMillion: number;
  /** Null: cached input costs the input price. */
  cacheReadPerMillion: number | null;
  cacheWritePerMillion: number | null;
}

/** What prices a call besides the bundled table: admins' overrides and the failed-call rule's statuses. */
export interface PricingRules {
  overrides: readonly PriceOverride[];
  /** A model call that failed with one of these HTTP statuses was refused before generating: it costs 0. */
  refusedStatuses: ReadonlySet<number>;
}

/** The rules as the migration seeds them; what applies before an admin changes anything. */
export const DEFAULT_PRICING_RULES: PricingRules = {
  overrides: [],
  refusedStatuses: new Set([400, 401, 403, 404, 413, 422, 429]),
};

/** The rules as stored, read in one round trip. */
export async function readPricingRules(db: Executor): Promise<PricingRules> {
  const [row] = await db.execute<{ overrides: PriceOverride[] | null; statuses: number[] | null }>(sql`
    select
      (select json_agg(json_build_object(
          'provider', provider, 'model', model,
          'inputPerMillion', input_per_million::float8, 'outputPerMillion', output_per_million::float8,
          'cacheReadPerMillion', cache_read_per_million::float8, 'cacheWritePerMillion', cache_write_per_million::float8)
        order by provider, model)
       from price_overrides) as overrides,
      (select array_agg(http_status order by http_status) from refused_call_statuses) as statuses`);
  return { overrides: row?.overrides ?? [], refusedStatuses: new Set(row?.statuses ?? []) };
}

/** The override for a call's provider and model, if an admin set one: one for its provider wins over one for any. */
export function overrideFor(
  rules: PricingRules,
  providerNames: readonly string[],
  model: string,
): PriceOverride | undefined {
  const wanted = model.toLowerCase();
  const forModel = rules.overrides.filter((override) => override.model.toLowerCase() === wanted);
  const providers = new Set(providerNames.map((name) => name.toLowerCase()));
  return (
    forModel.find((override) => override.provider !== '' && providers.has(override.provider.toLowerCase())) ??
    forModel.find((override) => override.provider === '')
  );
}

/** The stored rules, read at most every few seconds per database (rules-cache.ts). */
export const storedPricingRules = cachedPerDatabase(readPricingRules);
