import { sql } from 'drizzle-orm';
import { check, integer, numeric, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { errorClass } from './attempts';

/**
 * Prices an admin set for a provider and model (negotiated rates), in USD per million tokens. They win
 * over the bundled price table (packages/engine/src/core/pricing) for attempts priced after they are set; provider ''
 * matches the model from any provider. A null cache price falls back to the input price.
 */
export const priceOverrides = pgTable(
  'price_overrides',
  {
    provider: text('provider').notNull(),
    model: text('model').notNull(),
    inputPerMillion: numeric('input_per_million', { precision: 14, scale: 6 }).notNull(),
    outputPerMillion: numeric('output_per_million', { precision: 14, scale: 6 }).notNull(),
    cacheReadPerMillion: numeric('cache_read_per_million', { precision: 14, scale: 6 }),
    cacheWritePerMillion: numeric('cache_write_per_million', { precision: 14, scale: 6 }),
    updatedBy: text('updated_by').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ name: 'price_overrides_pkey', columns: [table.provider, table.model] }),
    check('price_overrides_model_named', sql`btrim(${table.model}) <> ''`),
    check(
      'price_overrides_prices_not_negative',
      sql`${table.inputPerMillion} >= 0 and ${table.outputPerMillion} >= 0
        and coalesce(${table.cacheReadPerMillion}, 0) >= 0 and coalesce(${table.cacheWritePerMillion}, 0) >= 0`,
    ),
  ],
);

/**
 * The failed-call rule's statuses: a model call that failed with one of these HTTP statuses was refused
 * before the model generated anything, so it costs 0 (cost source `rule`). Seeded with 400, 401, 403,
 * 404, 413, 422 and 429; admins edit the list.
 */
export const refusedCallStatuses = pgTable(
  'refused_call_statuses',
  {
    httpStatus: integer('http_status').primaryKey(),
  },
  (table) => [check('refused_call_statuses_http_status', sql`${table.httpStatus} between 400 and 599`)],
);

/**
 * The rule table that classes a failed span's error (packages/engine/src/traces/error-class-rules.ts), first match by
 * position: an HTTP status range, or words that `error.type` contains. Seeded with the default
 * rules; admins edit them. A failure no rule matches is `unknown`.
 */
export const errorClassRules = pgTable(
  'error_class_rules',
  {
    position: integer('position').notNull(),
    httpStatusFrom: integer('http_status_from'),
    httpStatusTo: integer('http_status_to'),
    /** Words `error.type` may contain (any one, ignoring case): plain text, not patterns, so no rule can hang a match. */
    errorTypeContains: text('error_type_contains').array(),
    errorClass: errorClass('error_class').notNull(),
  },
  (table) => [
    primaryKey({ name: 'error_class_rules_pkey', columns: [table.position] }),
    check(
      'error_class_rules_one_condition',
      sql`(${table.errorTypeContains} is null) = (${table.httpStatusFrom} is not null and ${table.httpStatusTo} is not null)`,
    ),
    check(
      'error_class_rules_status_range',
      sql`${table.httpStatusFrom} is null or (${table.httpStatusFrom} between 100 and 599
        and ${table.httpStatusTo} between ${table.httpStatusFrom} and 599)`,
    ),
    check(
      'error_class_rules_words',
      sql`${table.errorTypeContains} is null or cardinality(${table.errorTypeContains}) between 1 and 20`,
    ),
  ],
);
