import { bigint, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { errorClass } from './attempts';
import { microSum } from './figures';

/**
 * Running totals behind the Prometheus counters (GET /metrics). The rollup pass
 * adds to them what each hour it rolls adds (and a re-rolled hour's increase),
 * and nothing ever subtracts: raw retention and rollup retention delete rows
 * these totals have already counted, so a counter never goes backwards, and
 * being in the database they survive a restart. A scrape adds the raw tail not
 * yet rolled up.
 */
export const attemptTotals = pgTable(
  'attempt_totals',
  {
    agent: text('agent').notNull(),
    step: text('step').notNull(),
    attempts: bigint('attempts', { mode: 'number' }).notNull().default(0),
    retries: bigint('retries', { mode: 'number' }).notNull().default(0),
    costMicros: microSum('cost_micros').notNull().default('0'),
    retryCostMicros: microSum('retry_cost_micros').notNull().default('0'),
  },
  (table) => [primaryKey({ name: 'attempt_totals_pkey', columns: [table.agent, table.step] })],
);

/** Failed attempts per class, the same way (a running attempt that fails later adds here when rolled). */
export const failureTotals = pgTable(
  'failure_totals',
  {
    agent: text('agent').notNull(),
    step: text('step').notNull(),
    errorClass: errorClass('error_class').notNull(),
    failures: bigint('failures', { mode: 'number' }).notNull().default(0),
  },
  (table) => [primaryKey({ name: 'failure_totals_pkey', columns: [table.agent, table.step, table.errorClass] })],
);

/**
 * Begins refused for want of budget (a task's retries, spend or time, or an
 * empty retry pool), counted as they happen, outside the refused transaction.
 */
export const budgetRefusalTotals = pgTable(
  'budget_refusal_totals',
  {
    agent: text('agent').notNull(),
    step: text('step').notNull(),
    reason: text('reason').notNull(),
    refusals: bigint('refusals', { mode: 'number' }).notNull().default(0),
  },
  (table) => [primaryKey({ name: 'budget_refusal_totals_pkey', columns: [table.agent, table.step, table.reason] })],
);

/**
 * The same refusals per minute, for rates (the budget-refusal alert reads the
 * last few minutes); written in the same statement as the total, and trimmed
 * after a day by the alert sweep.
 */
export const budgetRefusalMinutes = pgTable(
  'budget_refusal_minutes',
  {
    minute: timestamp('minute', { withTimezone: true }).notNull(),
    agent: text('agent').notNull(),
    step: text('step').notNull(),
    reason: text('reason').notNull(),
    refusals: bigint('refusals', { mode: 'number' }).notNull().default(0),
  },
  (table) => [
    primaryKey({
      name: 'budget_refusal_minutes_pkey',
      columns: [table.minute, table.agent, table.step, table.reason],
    }),
  ],
);
