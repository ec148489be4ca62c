import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, check, index, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';
import type { RunStatus } from '@holdfast/protocol/enums';
export { runStatuses, type RunStatus } from '@holdfast/protocol/enums';

/** One execution of a task by a worker, named by the run key that started it. */
export const runs = pgTable(
  'runs',
  {
    runKey: text('run_key').primaryKey(),
    taskId: text('task_id').notNull(),
    agent: text('agent').notNull(),
    status: text('status').$type<RunStatus>().notNull().default('running'),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (table) => [
    check('runs_status_known', sql`${table.status} in ('running', 'finished', 'failed')`),
    check('runs_finished_when_not_running', sql`(${table.status} = 'running') = (${table.finishedAt} is null)`),
    // Serves the task timeline's runs.
    index('runs_task_id_idx').on(table.taskId),
  ],
);

/**
 * "One run does this job for this slot". The row outlives releases so the
 * fencing token only ever grows for a slot.
 */
export const slotLocks = pgTable(
  'slot_locks',
  {
    slot: text('slot').primaryKey(),
    holderRunKey: text('holder_run_key').notNull(),
    fencingToken: bigint('fencing_token', { mode: 'number' }).notNull(),
    acquiredAt: timestamp('acquired_at', { withTimezone: true }).notNull().defaultNow(),
    heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** Set when the holder (or a guarded force release) let go; null while held. */
    releasedAt: timestamp('released_at', { withTimezone: true }),
    releasedBy: text('released_by'),
    /** Since when the sweeper has refused to release this stale lock, and the guards that failed last. */
    releaseRefusedSince: timestamp('release_refused_since', { withTimezone: true }),
    releaseRefusedGuards: text('release_refused_guards').array(),
    /** When a lock the sweeper kept refusing was escalated to a person (once per holder). */
    escalatedAt: timestamp('escalated_at', { withTimezone: true }),
  },
  (table) => [
    // Serves the sweep and the Locks page: held locks past their time to live.
    index('slot_locks_held_expires_at_idx').on(table.expiresAt).where(sql`${table.releasedAt} is null`),
  ],
);

/** A record that a slot's side effect happened (e.g. the published page's id). */
export const slotEvidence = pgTable(
  'slot_evidence',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    slot: text('slot').notNull(),
    runKey: text('run_key').notNull(),
    fencingToken: bigint('fencing_token', { mode: 'number' }).notNull(),
    ref: text('ref').notNull(),
    recordedAt: timestamp('recorded_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    // Recording the same evidence twice (a redelivery) keeps one row; also serves the guard's lookup.
    unique('slot_evidence_slot_run_key_ref_key').on(table.slot, table.runKey, table.ref),
  ],
);

/** Named switches that stop an automatic behaviour; `engaged` means stopped. */
export const killSwitches = pgTable('kill_switches', {
  name: text('name').primaryKey(),
  engaged: boolean('engaged').notNull(),
  reason: text('reason'),
  changedBy: text('changed_by'),
  changedAt: timestamp('changed_at', { withTimezone: true }).notNull().defaultNow(),
});

export type SlotLock = typeof slotLocks.$inferSelect;
export type Run = typeof runs.$inferSelect;
