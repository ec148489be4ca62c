import { sql } from 'drizzle-orm';
import {
  bigserial,
  check,
  doublePrecision,
  index,
  integer,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  unique,
} from 'drizzle-orm/pg-core';

/** A pool for every step of an agent names this as its step. */
export const ALL_STEPS = '*';

/**
 * A fleet retry pool: over a sliding window, retries of an agent (or of one
 * of its steps) may be at most `budgetPercent` % of its first attempts, plus
 * `minRetriesPerSecond` x the window as a floor for quiet periods. An empty
 * pool refuses retries with a wait code, so an outage downstream cannot turn
 * into a retry storm. Edited by admins on the Retry pools page.
 */
export const retryPools = pgTable(
  'retry_pools',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    agent: text('agent').notNull(),
    /** One step's name, or `*` for every step of the agent. */
    step: text('step').notNull().default(ALL_STEPS),
    budgetPercent: doublePrecision('budget_percent').notNull(),
    minRetriesPerSecond: doublePrecision('min_retries_per_second').notNull(),
    windowSeconds: integer('window_seconds').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    updatedBy: text('updated_by').notNull(),
  },
  (table) => [
    unique('retry_pools_agent_step_key').on(table.agent, table.step),
    check('retry_pools_budget_percent_range', sql`${table.budgetPercent} between 0 and 1000`),
    check('retry_pools_floor_range', sql`${table.minRetriesPerSecond} between 0 and 1000`),
    check('retry_pools_window_range', sql`${table.windowSeconds} between 10 and 86400`),
  ],
);

export type RetryPool = typeof retryPools.$inferSelect;

/**
 * First attempts, granted retries and refused retries per (agent, step) and
 * 5-second slice: the pools' sliding windows are sums over these slices.
 * Written by the step engine at begin; slices older than a day are deleted.
 */
export const retryPoolUsage = pgTable(
  'retry_pool_usage',
  {
    agent: text('agent').notNull(),
    step: text('step').notNull(),
    sliceStart: timestamp('slice_start', { withTimezone: true }).notNull(),
    /**
     * Which of a slice's rows a count went to: the writing connection's (counterStripeSql). Concurrent begins of
     * one step would otherwise all update one row and wait on each other's commits; readers sum every stripe.
     */
    stripe: smallint('stripe').notNull().default(0),
    firstAttempts: integer('first_attempts').notNull().default(0),
    retries: integer('retries').notNull().default(0),
    refusals: integer('refusals').notNull().default(0),
  },
  (table) => [
    primaryKey({ name: 'retry_pool_usage_pkey', columns: [table.agent, table.step, table.sliceStart, table.stripe] }),
    // Serves an agent-wide pool's window: every step of one agent since a moment.
    index('retry_pool_usage_agent_slice_start_idx').on(table.agent, table.sliceStart),
  ],
);
