import { sql } from 'drizzle-orm';
import type { CoreContext } from '../kernel/context';

/**
 * Deletes keys past their retention expiry, in batches so no statement holds
 * many row locks for long. Keys in progress are never deleted, whatever their
 * expiry: a live holder may yet complete one (retention never ends a live
 * claim), and an expired one whose downstream cannot deduplicate is an
 * uncertain outcome waiting for a person. Returns how many were deleted.
 */
export async function deleteExpiredKeys(ctx: CoreContext, batchSize = 1_000): Promise<number> {
  let deleted = 0;
  while (true) {
    const rows = await ctx.db.execute(sql`
      delete from idempotency_keys
      where key in (
        select key from idempotency_keys
        where expires_at <= now() and status <> 'in_progress'
        limit ${batchSize}
        for update skip locked)
      returning 1`);
    deleted += rows.length;
    if (rows.length < batchSize) return deleted;
  }
}

/** Deletes the HTTP API's remembered responses past their day, in batches. */
export async function deleteExpiredApiRequests(ctx: CoreContext, batchSize = 1_000): Promise<number> {
  let deleted = 0;
  while (true) {
    const rows = await ctx.db.execute(sql`
      delete from api_requests
      where (actor_id, idempotency_key) in (
        select actor_id, idempotency_key from api_requests where expires_at <= now() limit ${batchSize} for update skip locked)
      returning 1`);
    deleted += rows.length;
    if (rows.length < batchSize) return deleted;
  }
}
