import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  check,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

/** What a pause stops: one step of an agent, every step of an agent, or every step that names a downstream at begin. */
export const pauseScopes = ['step', 'agent', 'downstream'] as const;
export type PauseScope = (typeof pauseScopes)[number];

/**
 * A pause set by a person: while it holds, every begin it covers (first tries
 * and retries alike) is answered with a wait (`PAUSED`), and nothing runs.
 * It holds from `paused_at` until `ends_at` (if set) or until resumed. Resumed
 * with a ramp, it then lets through a rising number of begins per minute until
 * `ramp_ends_at`. Rows are kept as the pause history.
 */
export const pauses = pgTable(
  'pauses',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    scope: text('scope').$type<PauseScope>().notNull(),
    /** The agent, for a step or agent pause. */
    agent: text('agent'),
    /** The step, for a step pause. */
    step: text('step'),
    /** The downstream, for a downstream pause. */
    downstream: text('downstream'),
    reason: text('reason').notNull(),
    pausedBy: text('paused_by').notNull(),
    pausedAt: timestamp('paused_at', { withTimezone: true }).notNull(),
    /** Lifts by itself at this time; null: until someone resumes it. */
    endsAt: timestamp('ends_at', { withTimezone: true }),
    resumedAt: timestamp('resumed_at', { withTimezone: true }),
    resumedBy: text('resumed_by'),
    /** Begins let through in the ramp's first minute; minute m (from 0) lets through (m + 1) times this. */
    rampStartPerMinute: integer('ramp_start_per_minute'),
    /** After this, begins are no longer limited. */
    rampEndsAt: timestamp('ramp_ends_at', { withTimezone: true }),
  },
  (table) => [
    check('pauses_scope_known', sql`${table.scope} in ('step', 'agent', 'downstream')`),
    check(
      'pauses_target_fits_scope',
      sql`case ${table.scope}
        when 'step' then ${table.agent} is not null and ${table.step} is not null and ${table.downstream} is null
        when 'agent' then ${table.agent} is not null and ${table.step} is null and ${table.downstream} is null
        else ${table.agent} is null and ${table.step} is null and ${table.downstream} is not null end`,
    ),
    check('pauses_ends_after_start', sql`${table.endsAt} is null or ${table.endsAt} > ${table.pausedAt}`),
    check('pauses_resumed_with_who', sql`(${table.resumedAt} is null) = (${table.resumedBy} is null)`),
    check(
      'pauses_ramp_after_resume',
      sql`(${table.rampEndsAt} is null) = (${table.rampStartPerMinute} is null)
        and (${table.rampEndsAt} is null or (${table.resumedAt} is not null and ${table.rampEndsAt} > ${table.resumedAt}))
        and (${table.rampStartPerMinute} is null or ${table.rampStartPerMinute} >= 1)`,
    ),
    // One pause holds a target at a time: two people pausing it at once make one pause.
    uniqueIndex('pauses_one_unresumed_per_target')
      .on(
        table.scope,
        sql`coalesce(${table.agent}, '')`,
        sql`coalesce(${table.step}, '')`,
        sql`coalesce(${table.downstream}, '')`,
      )
      .where(sql`${table.resumedAt} is null`),
    // A begin looks up the pauses that may hold it by agent and by downstream.
    index('pauses_by_agent').on(table.agent, table.pausedAt),
    index('pauses_by_downstream').on(table.downstream, table.pausedAt),
  ],
);

export type Pause = typeof pauses.$inferSelect;

/** Begins a ramp let through, per pause and minute (the ramp's limit is checked against it). */
export const pauseRampMinutes = pgTable(
  'pause_ramp_minutes',
  {
    pauseId: bigint('pause_id', { mode: 'number' })
      .notNull()
      .references(() => pauses.id, { onDelete: 'cascade' }),
    minute: timestamp('minute', { withTimezone: true }).notNull(),
    granted: integer('granted').notNull(),
  },
  (table) => [primaryKey({ name: 'pause_ramp_minutes_pkey', columns: [table.pauseId, table.minute] })],
);

/**
 * Begins a pause or a ramp turned away, per pause, minute and task: the backlog
 * a pause holds back (waiting begins, and the distinct tasks behind them).
 */
export const pauseWaitMinutes = pgTable(
  'pause_wait_minutes',
  {
    pauseId: bigint('pause_id', { mode: 'number' })
      .notNull()
      .references(() => pauses.id, { onDelete: 'cascade' }),
    minute: timestamp('minute', { withTimezone: true }).notNull(),
    taskId: text('task_id').notNull(),
    waits: integer('waits').notNull(),
  },
  (table) => [primaryKey({ name: 'pause_wait_minutes_pkey', columns: [table.pauseId, table.minute, table.taskId] })],
);
