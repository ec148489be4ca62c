import { index, integer, numeric, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The retry-policy simulator's input (packages/engine/src/core/retry/simulate-policy.ts): the
 * executions of each step (a task's pass of it, attempt 1 onwards) begun in
 * each hour, summed by their shape. A shape is the execution's attempts in
 * order, each as `<attempt number>:<how it ended>`, where how it ended is
 * `ok`, `running` or the failure's error class: `1:transient 2:timeout 3:ok`.
 * One row per attempt position of a shape, so the simulator finds where a
 * policy would have stopped each shape and sums what comes after, reading a
 * few rows per hour instead of every attempt.
 *
 * The rollup pass (packages/engine/src/rollups/execution-shapes.ts) rewrites an hour whole
 * whenever an execution begun in it gains or finishes an attempt, so a late
 * retry moves its execution to its new shape.
 */
export const executionShapeHours = pgTable(
  'execution_shape_hours',
  {
    /** The hour the executions' first attempts started (UTC). */
    hour: timestamp('hour', { withTimezone: true }).notNull(),
    agent: text('agent').notNull(),
    step: text('step').notNull(),
    shape: text('shape').notNull(),
    /** Which attempt of the shape this row sums. */
    attemptNumber: integer('attempt_number').notNull(),
    /** Executions of this shape begun in the hour. */
    executions: integer('executions').notNull(),
    /** What this attempt cost, summed over those executions (numeric: exact, and no bigint overflow). */
    costMicros: numeric('cost_micros').notNull(),
    /** What this attempt added to retry-attributable spend (attempts.retry_cost_micros), summed likewise. */
    retryCostMicros: numeric('retry_cost_micros').notNull().default('0'),
    /** From this attempt's end to its execution's last end, in milliseconds, summed: the time a stop here saves. */
    toEndMs: numeric('to_end_ms').notNull(),
  },
  (table) => [index('execution_shape_hours_agent_step_hour_idx').on(table.agent, table.step, table.hour)],
);
