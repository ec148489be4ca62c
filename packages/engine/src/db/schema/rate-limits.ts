import { bigint, boolean, doublePrecision, pgTable, timestamp } from 'drizzle-orm/pg-core';
import { apiTokens } from './identity';

/**
 * Each API token's request bucket (packages/engine/src/core/identity/api-tokens-rate-limit.ts): one row per token, shared by
 * every instance on the database, changed by one statement per request. UNLOGGED (set by its migration): it is
 * written on every agent request and worth no WAL flush; after a crash it is empty, which only gives every
 * token a full bucket again.
 */
export const apiTokenBuckets = pgTable('api_token_buckets', {
  tokenId: bigint('token_id', { mode: 'number' })
    .primaryKey()
    .references(() => apiTokens.id, { onDelete: 'cascade' }),
  /** Requests the token may still make at once, as of refilled_at (fractional: the refill is continuous). */
  tokens: doublePrecision('tokens').notNull(),
  refilledAt: timestamp('refilled_at', { withTimezone: true }).notNull(),
  /** Whether the last request took a token: what the request's one statement answers. */
  granted: boolean('granted').notNull(),
});

export type ApiTokenBucket = typeof apiTokenBuckets.$inferSelect;
