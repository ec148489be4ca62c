import { sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import { writeAudit } from '../audit/audit-log';
import { authorize } from '../identity/authorization';
import { actorLabel, type CoreContext } from '../kernel/context';
import { parseInput } from '@holdfast/protocol/validation';
import {
  deletePriceOverrideInput,
  type DeletePriceOverrideInput,
  saveRefusedStatusesInput,
  type SaveRefusedStatusesInput,
  savePriceOverrideInput,
  type SavePriceOverrideInput,
} from './manage-pricing-input';
import { type PriceOverride, storedPricingRules } from './pricing-rules';

/** What an audit record keeps of an override. */
type OverridePrices = Omit<PriceOverride, 'provider' | 'model'>;

const overrideTarget = (provider: string, model: string) => `${provider || '*'}/${model}`;

/**
 * Sets an admin's price for a provider and model (USD per million tokens), which wins over the
 * bundled table for attempts priced from now on; admins only, with a reason, audit-logged in the
 * same transaction. Saving the prices an override already has writes nothing.
 */
export async function savePriceOverride(
  ctx: CoreContext,
  input: SavePriceOverrideInput,
): Promise<{ changed: boolean; created: boolean }> {
  const actor = authorize(ctx, 'pricing.manage');
  const request = parseInput(savePriceOverrideInput, input);
  const prices: OverridePrices = {
    inputPerMillion: request.inputPerMillion,
    outputPerMillion: request.outputPerMillion,
    cacheReadPerMillion: request.cacheReadPerMillion,
    cacheWritePerMillion: request.cacheWritePerMillion,
  };
  const result = await ctx.db.transaction(async (tx) => {
    const before = await lockedOverride(tx, request.provider, request.model);
    if (before && samePrices(before, prices)) return { changed: false, created: false };
    await tx.execute(sql`
      insert into price_overrides (provider, model, input_per_million, output_per_million, cache_read_per_million,
        cache_write_per_million, updated_by, updated_at)
      values (${request.provider}, ${request.model}, ${prices.inputPerMillion}, ${prices.outputPerMillion},
        ${prices.cacheReadPerMillion}, ${prices.cacheWritePerMillion}, ${actorLabel(actor)}, now())
      on conflict (provider, model) do update set
        input_per_million = excluded.input_per_million, output_per_million = excluded.output_per_million,
        cache_read_per_million = excluded.cache_read_per_million,
        cache_write_per_million = excluded.cache_write_per_million,
        updated_by = excluded.updated_by, updated_at = excluded.updated_at`);
    await writeAudit(tx, actor, {
      action: 'price_override.save',
      targetType: 'price_override',
      targetId: overrideTarget(request.provider, request.model),
      reason: request.reason,
      before: before ?? null,
      after: prices,
    });
    return { changed: true, created: !before };
  });
  if (result.changed) storedPricingRules.forget(ctx.db);
  return result;
}

/** Removes an override: the model is priced by the table again. Removing one that is gone changes nothing. */
export async function deletePriceOverride(
  ctx: CoreContext,
  input: DeletePriceOverrideInput,
): Promise<{ changed: boolean }> {
  const actor = authorize(ctx, 'pricing.manage');
  const request = parseInput(deletePriceOverrideInput, input);
  const result = await ctx.db.transaction(async (tx) => {
    const before = await lockedOverride(tx, request.provider, request.model);
    if (!before) return { changed: false };
    await tx.execute(
      sql`delete from price_overrides where provider = ${request.provider} and model = ${request.model}`,
    );
    await writeAudit(tx, actor, {
      action: 'price_override.delete',
      targetType: 'price_override',
      targetId: overrideTarget(request.provider, request.model),
      reason: request.reason,
      before,
      after: null,
    });
    return { changed: true };
  });
  if (result.changed) storedPricingRules.forget(ctx.db);
  return result;
}

/**
 * Replaces the failed-call rule's statuses (a model call refused with one of them costs 0); admins
 * only, with a reason, audited with the lists before and after. The same list writes nothing.
 */
export async function saveRefusedStatuses(
  ctx: CoreContext,
  input: SaveRefusedStatusesInput,
): Promise<{ changed: boolean }> {
  const actor = authorize(ctx, 'pricing.manage');
  const request = parseInput(saveRefusedStatusesInput, input);
  const result = await ctx.db.transaction(async (tx) => {
    // One editor at a time: the lock makes a concurrent save wait, then compare with what this one wrote.
    await tx.execute(sql`lock table refused_call_statuses in share row exclusive mode`);
    const rows = await tx.execute<{ http_status: number }>(
      sql`select http_status from refused_call_statuses order by http_status`,
    );
    const before = rows.map((row) => row.http_status);
    if (before.join(',') === request.statuses.join(',')) return { changed: false };
    await tx.execute(sql`delete from refused_call_statuses`);
    if (request.statuses.length > 0)
      await tx.execute(sql`
        insert into refused_call_statuses (http_status)
        select value::int from jsonb_array_elements_text(${JSON.stringify(request.statuses)}::jsonb)`);
    await writeAudit(tx, actor, {
      action: 'refused_call_statuses.save',
      targetType: 'pricing_rule',
      targetId: 'refused_call_statuses',
      reason: request.reason,
      before,
      after: request.statuses,
    });
    return { changed: true };
  });
  if (result.changed) storedPricingRules.forget(ctx.db);
  return result;
}

async function lockedOverride(tx: Transaction, provider: string, model: string): Promise<OverridePrices | undefined> {
  const [row] = await tx.execute<OverridePrices>(sql`
    select input_per_million::float8 as "inputPerMillion", output_per_million::float8 as "outputPerMillion",
      cache_read_per_million::float8 as "cacheReadPerMillion", cache_write_per_million::float8 as "cacheWritePerMillion"
    from price_overrides where provider = ${provider} and model = ${model} for update`);
  return row;
}

function samePrices(a: OverridePrices, b: OverridePrices): boolean {
  return (
    a.inputPerMillion === b.inputPerMillion &&
    a.outputPerMillion === b.outputPerMillion &&
    a.cacheReadPerMillion === b.cacheReadPerMillion &&
    a.cacheWritePerMillion === b.cacheWritePerMillion
  );
}
