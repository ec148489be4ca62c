import { index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { errorClass } from './attempts';

/**
 * Failures grouped by cause. A group is one agent's step, one error class and
 * one error pattern: the first line of the error text with its numbers, ids,
 * hashes, quoted values and addresses taken out by the SQL function
 * holdfast_error_pattern (migration 0036; docs/console.md, "Errors"). Its
 * fingerprint is the md5 of the four (holdfast_error_fingerprint). The rollup
 * pass adds the groups it meets in the hours it rolls; a group outlives its
 * hours until the retention sweep drops both.
 */
export const errorGroups = pgTable(
  'error_groups',
  {
    fingerprint: text('fingerprint').primaryKey(),
    agent: text('agent').notNull(),
    step: text('step').notNull(),
    errorClass: errorClass('error_class'),
    pattern: text('pattern').notNull(),
    /** One failure's own text (at most 2,000 characters), so a person sees a real example. */
    sampleError: text('sample_error'),
    firstSeenAt: timestamp('first_seen_at', { withTimezone: true }).notNull(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    index('error_groups_agent_step_idx').on(table.agent, table.step),
    index('error_groups_last_seen_at_idx').on(table.lastSeenAt),
  ],
);

/**
 * Each group's failures per closed hour (by the failed attempts' start, as
 * the attempt rollups count them): rewritten whole with the hour, so a late
 * or re-rolled hour gives the same rows. Failures add up across hours; tasks
 * are distinct within the hour only.
 */
export const errorGroupHours = pgTable(
  'error_group_hours',
  {
    hour: timestamp('hour', { withTimezone: true }).notNull(),
    fingerprint: text('fingerprint').notNull(),
    failures: integer('failures').notNull(),
    tasks: integer('tasks').notNull(),
    firstFailedAt: timestamp('first_failed_at', { withTimezone: true }).notNull(),
    lastFailedAt: timestamp('last_failed_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.hour, table.fingerprint] }),
    index('error_group_hours_fingerprint_hour_idx').on(table.fingerprint, table.hour),
  ],
);

/**
 * Each group's failures per UTC day, the sums of its hours' rows (tasks too,
 * so a task failing in two hours still counts twice), rewritten by the pass
 * for every day it touches; readers take a day only once all its hours are
 * rolled. Long windows read a row per day instead of 24.
 */
export const errorGroupDays = pgTable(
  'error_group_days',
  {
    day: timestamp('day', { withTimezone: true }).notNull(),
    fingerprint: text('fingerprint').notNull(),
    failures: integer('failures').notNull(),
    tasks: integer('tasks').notNull(),
    firstFailedAt: timestamp('first_failed_at', { withTimezone: true }).notNull(),
    lastFailedAt: timestamp('last_failed_at', { withTimezone: true }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.day, table.fingerprint] })],
);

export type ErrorGroup = typeof errorGroups.$inferSelect;
