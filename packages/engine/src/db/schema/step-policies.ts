import { sql } from 'drizzle-orm';
import { check, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import type { ErrorClass } from '@holdfast/protocol/enums';

/**
 * An admin's override of one step's retry policy, applied at the next begin
 * and finish without redeploying its agent. A null column leaves that part of
 * the policy as the agent sends it (or as Holdfast's default).
 */
export const stepPolicies = pgTable(
  'step_policies',
  {
    agent: text('agent').notNull(),
    step: text('step').notNull(),
    /** The step stops (retry ceiling) once this many attempts of it failed in one task. */
    maxAttempts: integer('max_attempts'),
    /** The error classes retried; a failure of another class stops the step. */
    retriedClasses: text('retried_classes').array().$type<ErrorClass[]>(),
    baseDelayMs: integer('base_delay_ms'),
    maxDelayMs: integer('max_delay_ms'),
    /** The retry allowance of a task this step's begin creates (instead of the one the begin states). */
    retryAllowance: integer('retry_allowance'),
    updatedBy: text('updated_by').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ name: 'step_policies_pkey', columns: [table.agent, table.step] }),
    check('step_policies_max_attempts_range', sql`${table.maxAttempts} between 1 and 100`),
    check('step_policies_delays', sql`${table.baseDelayMs} >= 0 and ${table.maxDelayMs} >= ${table.baseDelayMs}`),
    check('step_policies_allowance_range', sql`${table.retryAllowance} between 0 and 1000`),
  ],
);

export type StepPolicy = typeof stepPolicies.$inferSelect;
