import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { errorClass } from './attempts';
import type {
  DeadLetterReason,
  DeadLetterStatus,
  BulkRedriveStatus,
  BulkRedriveOutcome,
} from '@holdfast/protocol/enums';
export {
  deadLetterReasons,
  deadLetterStatuses,
  bulkRedriveStatuses,
  bulkRedriveOutcomes,
  type DeadLetterReason,
  type DeadLetterStatus,
  type BulkRedriveStatus,
  type BulkRedriveOutcome,
} from '@holdfast/protocol/enums';

/** Work whose retries ran out, kept with everything needed to redrive it. */
export const deadLetters = pgTable(
  'dead_letters',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    taskId: text('task_id').notNull(),
    agent: text('agent').notNull(),
    step: text('step').notNull(),
    queue: text('queue').notNull(),
    payload: jsonb('payload').notNull(),
    reason: text('reason').$type<DeadLetterReason>().notNull(),
    errorClass: errorClass('error_class'),
    lastError: text('last_error'),
    attempts: integer('attempts').notNull(),
    spendMicros: bigint('spend_micros', { mode: 'number' }).notNull(),
    status: text('status').$type<DeadLetterStatus>().notNull().default('pending'),
    /** Its error group (packages/engine/src/db/schema/error-groups.ts), kept by PostgreSQL from the columns above. */
    errorFingerprint: text('error_fingerprint').generatedAlwaysAs(
      sql`holdfast_error_fingerprint(agent, step, error_class, last_error)`,
    ),
    /**
     * Random, made with the row: an edited redrive's task id ends with it, so no one who can guess the dead
     * letter's id (they are sequential) can begin that task first and make the redrive fail (editedTaskId).
     */
    editNonce: text('edit_nonce').notNull().default(sql`substr(replace(gen_random_uuid()::text, '-', ''), 1, 16)`),
    /** How many times it was redriven; names the next redrive's outbox key. */
    redriveCount: integer('redrive_count').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    check('dead_letters_status_known', sql`${table.status} in ('pending', 'redriven', 'discarded')`),
    // However many workers exhaust a task at once, it has one pending dead letter.
    uniqueIndex('dead_letters_pending_task_id_idx').on(table.taskId).where(sql`${table.status} = 'pending'`),
    // Serves the dead-letter page and depth figure.
    index('dead_letters_status_created_at_idx').on(table.status, table.createdAt),
    // Serves an error group's pending dead letters.
    index('dead_letters_pending_error_fingerprint_idx')
      .on(table.errorFingerprint)
      .where(sql`${table.status} = 'pending'`),
  ],
);

/**
 * The redrive outbox. The key is derived from the dead letter and its redrive
 * number, so a double redrive enqueues once; a drainer hands rows to the queue.
 */
export const redrives = pgTable(
  'redrives',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    outboxKey: text('outbox_key').notNull().unique('redrives_outbox_key_key'),
    deadLetterId: bigint('dead_letter_id', { mode: 'number' })
      .notNull()
      .references(() => deadLetters.id),
    queue: text('queue').notNull(),
    /**
     * The task the redriven work runs as: the dead letter's own, or for an edited
     * payload a new task (new content is a new operation, so its steps get new keys).
     */
    taskId: text('task_id').notNull(),
    payload: jsonb('payload').notNull(),
    /** The payload was edited before this redrive (the audit record keeps the changes). */
    payloadEdited: boolean('payload_edited').notNull().default(false),
    requestedBy: text('requested_by').notNull(),
    requestedAt: timestamp('requested_at', { withTimezone: true }).notNull().defaultNow(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    deliveryAttempts: integer('delivery_attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    lastError: text('last_error'),
  },
  (table) => [
    // Serves the drainer: undelivered rows that are due.
    index('redrives_undelivered_next_attempt_at_idx').on(table.nextAttemptAt).where(sql`${table.deliveredAt} is null`),
  ],
);

export type DeadLetter = typeof deadLetters.$inferSelect;
export type Redrive = typeof redrives.$inferSelect;

/**
 * A redrive of every pending dead letter matching a filter, run at a rate
 * limit. The record itself is the history the Dead letters page lists: who,
 * when, which filter, how far it got, and how it ended.
 */
export const bulkRedrives = pgTable(
  'bulk_redrives',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** Chosen by the browser for one confirmed run: a double submit finds the first run. */
    requestId: text('request_id').notNull().unique('bulk_redrives_request_id_key'),
    filter: jsonb('filter').notNull(),
    reason: text('reason').notNull(),
    ratePerSecond: integer('rate_per_second').notNull(),
    requestedBy: text('requested_by').notNull(),
    requestedAt: timestamp('requested_at', { withTimezone: true }).notNull().defaultNow(),
    status: text('status').$type<BulkRedriveStatus>().notNull().default('running'),
    total: integer('total').notNull(),
    processed: integer('processed').notNull().default(0),
    redriven: integer('redriven').notNull().default(0),
    /** Items that were no longer pending when their turn came (redriven or discarded meanwhile). */
    skipped: integer('skipped').notNull().default(0),
    cancelRequestedAt: timestamp('cancel_requested_at', { withTimezone: true }),
    cancelledBy: text('cancelled_by'),
    /** Written with every batch, so a stalled run can be told from a slow one. */
    heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (table) => [
    check('bulk_redrives_status_known', sql`${table.status} in ('running', 'completed', 'cancelled')`),
    check(
      'bulk_redrives_counts_add_up',
      sql`${table.processed} = ${table.redriven} + ${table.skipped} and ${table.processed} <= ${table.total}`,
    ),
    check('bulk_redrives_rate_positive', sql`${table.ratePerSecond} between 1 and 1000`),
    index('bulk_redrives_requested_at_idx').on(table.requestedAt),
  ],
);

/** The dead letters a bulk redrive took on when it started; each is done once. */
export const bulkRedriveItems = pgTable(
  'bulk_redrive_items',
  {
    bulkRedriveId: bigint('bulk_redrive_id', { mode: 'number' })
      .notNull()
      .references(() => bulkRedrives.id),
    deadLetterId: bigint('dead_letter_id', { mode: 'number' })
      .notNull()
      .references(() => deadLetters.id),
    /** Null until the item's turn; then what happened to it. */
    outcome: text('outcome').$type<BulkRedriveOutcome>(),
    doneAt: timestamp('done_at', { withTimezone: true }),
  },
  (table) => [
    primaryKey({ name: 'bulk_redrive_items_pkey', columns: [table.bulkRedriveId, table.deadLetterId] }),
    check('bulk_redrive_items_outcome_known', sql`${table.outcome} in ('redriven', 'skipped')`),
  ],
);

export type BulkRedrive = typeof bulkRedrives.$inferSelect;
