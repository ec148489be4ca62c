import { bigint, bigserial, pgSchema, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The demo fleet's own schema. Its tables are made by the fleet's migration set
 * (lib/fleet/migrations, applied by applyFleetMigrations), never by the product's:
 * a database that never ran the fleet has none of them. Kept out of
 * packages/engine/src/db/schema so that drizzle-kit does not generate them into drizzle/.
 */
export const FLEET_SCHEMA = 'holdfast_demo';
export const fleetSchema = pgSchema(FLEET_SCHEMA);

/**
 * The demo fleet's simulated downstreams. Each row is a side effect that
 * really happened, so counting rows per task proves whether anything ran
 * twice. Only the payment ledger deduplicates by itself (on its idempotency
 * key); the outbox and the publisher do whatever they are asked.
 */
export const fleetEmailOutbox = fleetSchema.table('fleet_email_outbox', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  taskId: text('task_id').notNull(),
  recipient: text('recipient').notNull(),
  subject: text('subject').notNull(),
  sentAt: timestamp('sent_at', { withTimezone: true }).notNull().defaultNow(),
});

export const fleetPaymentLedger = fleetSchema.table('fleet_payment_ledger', {
  /** The payment provider's own idempotency key: a repeated charge with it is a no-op. */
  idempotencyKey: text('idempotency_key').primaryKey(),
  taskId: text('task_id').notNull(),
  amountMicros: bigint('amount_micros', { mode: 'number' }).notNull(),
  chargedAt: timestamp('charged_at', { withTimezone: true }).notNull().defaultNow(),
});

export const fleetPublications = fleetSchema.table('fleet_publications', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  taskId: text('task_id').notNull(),
  page: text('page').notNull(),
  publishedAt: timestamp('published_at', { withTimezone: true }).notNull().defaultNow(),
});
