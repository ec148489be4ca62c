import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { errorClass } from './attempts';

export const keyStatuses = ['in_progress', 'completed', 'failed'] as const;
export type KeyStatus = (typeof keyStatuses)[number];

/**
 * Derived idempotency keys. The primary key is the uniqueness guarantee: two
 * claims of one key cannot both insert, whatever the application does.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    key: text('key').primaryKey(),
    scope: text('scope').notNull(),
    /** Hash of the operation's content: same key with another hash is a mismatch. */
    requestHash: text('request_hash').notNull(),
    status: text('status').$type<KeyStatus>().notNull(),
    /** Grows with every acquisition; completing or failing needs the current one. */
    fencingToken: bigint('fencing_token', { mode: 'number' }).notNull(),
    /** The claim call that holds (or last held) the key. */
    holderClaim: text('holder_claim').notNull(),
    holder: text('holder'),
    downstreamIdempotent: boolean('downstream_idempotent').notNull(),
    taskId: text('task_id'),
    step: text('step'),
    /** Acquisitions so far: the attempt number of the latest. */
    acquisitions: integer('acquisitions').notNull().default(1),
    /** Claim calls so far, duplicates included. */
    claimCalls: integer('claim_calls').notNull().default(1),
    result: jsonb('result'),
    errorClass: errorClass('error_class'),
    errorText: text('error_text'),
    /** In-progress expiry: after it another claim may take over (or, downstream not idempotent, it is uncertain). */
    lockedUntil: timestamp('locked_until', { withTimezone: true }),
    /** Retention expiry: kept until then to cover the retry horizon, then swept. */
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** Last change of status, holder or result. */
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    lastClaimedAt: timestamp('last_claimed_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    check('idempotency_keys_status_known', sql`${table.status} in ('in_progress', 'completed', 'failed')`),
    check('idempotency_keys_in_progress_has_expiry', sql`(${table.status} = 'in_progress') = (${table.lockedUntil} is not null)`),
    // Serves the sweep of expired keys.
    index('idempotency_keys_expires_at_idx').on(table.expiresAt),
    // Serves "stuck and uncertain keys": in-progress keys past their expiry.
    index('idempotency_keys_in_progress_locked_until_idx').on(table.lockedUntil).where(sql`${table.status} = 'in_progress'`),
  ],
);

export type IdempotencyKey = typeof idempotencyKeys.$inferSelect;
