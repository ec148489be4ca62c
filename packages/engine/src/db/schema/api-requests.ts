import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The HTTP API's own idempotency keys: a request retried with the same
 * `Idempotency-Key` header gets the first response back instead of acting
 * twice. Kept for a day, per API token.
 */
export const apiRequests = pgTable(
  'api_requests',
  {
    actorId: text('actor_id').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    /** `POST /api/v1/...`: the same key on another endpoint is a client bug, refused. */
    endpoint: text('endpoint').notNull(),
    requestHash: text('request_hash').notNull(),
    /** Null while the first request is still being answered. */
    status: integer('status'),
    responseBody: jsonb('response_body'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull().default(sql`now() + interval '24 hours'`),
  },
  (table) => [
    primaryKey({ name: 'api_requests_pkey', columns: [table.actorId, table.idempotencyKey] }),
    index('api_requests_expires_at_idx').on(table.expiresAt),
  ],
);

export type ApiRequest = typeof apiRequests.$inferSelect;
