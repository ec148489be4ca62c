import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { errorClass } from './attempts';
import type { KeyStatus } from '@holdfast/protocol/enums';
export { keyStatuses, type KeyStatus } from '@holdfast/protocol/enums';

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
    /**
     * Retention expiry: kept until then to cover the retry horizon, then swept.
     * Counted from the last change (a settle) and never before the in-progress
     * expiry, so retention cannot end a live claim.
     */
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** The claim's retention, applied again from each settle; null on rows from before it was kept. */
    retentionMs: bigint('retention_ms', { mode: 'number' }),
    /** Step keys only (the step engine): who runs it, where its task is queued, and its content for a dead letter. */
    agent: text('agent'),
    queue: text('queue'),
    payload: jsonb('payload'),
    /** The API token (actor id) that began the current attempt: only it may finish that attempt. Null in-process. */
    begunBy: text('begun_by'),
    /** The spend the current attempt reserved on its task; given back when it finishes or is taken over. */
    reservedMicros: bigint('reserved_micros', { mode: 'number' }).notNull().default(0),
    /**
     * The fleet's spend budgets the current attempt reserved its estimate under, as `[{ b: budget id, p: period
     * start, r: a retry }]`: its finish swaps each reservation for the real cost (core/budgets). Null: none.
     */
    budgetReservations: jsonb('budget_reservations').$type<{ b: number; p: string; r: boolean }[]>(),
    /** The downstream the current attempt's begin named (for the downstream's circuit breaker at finish). */
    downstream: text('downstream'),
    /**
     * The model the current attempt's begin declared (as budgets count it), or null: a finish naming a model its begin did
     * not counts its cost under that model's budgets as seen (it reserved under none of them).
     */
    model: text('model'),
    /** Begun with `final: true`: its success completes the task. */
    completesTask: boolean('completes_task').notNull().default(false),
    /** When the current attempt began, naming its row in the partitioned attempt log. */
    attemptStartedAt: timestamp('attempt_started_at', { withTimezone: true }),
    /** The step engine's answer to the current attempt's finish, repeated to a second finish of it. */
    finishAnswer: jsonb('finish_answer'),
    /** When an uncertain outcome was escalated to a person by the sweep (once per key). */
    escalatedAt: timestamp('escalated_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** Last change of status, holder or result. */
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    lastClaimedAt: timestamp('last_claimed_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    check('idempotency_keys_status_known', sql`${table.status} in ('in_progress', 'completed', 'failed')`),
    check(
      'idempotency_keys_in_progress_has_expiry',
      sql`(${table.status} = 'in_progress') = (${table.lockedUntil} is not null)`,
    ),
    // Serves the sweep of expired keys.
    index('idempotency_keys_expires_at_idx').on(table.expiresAt),
    // Serves "stuck and uncertain keys": in-progress keys past their expiry.
    index('idempotency_keys_in_progress_locked_until_idx')
      .on(table.lockedUntil)
      .where(sql`${table.status} = 'in_progress'`),
  ],
);

export type IdempotencyKey = typeof idempotencyKeys.$inferSelect;
