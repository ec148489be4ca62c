import { sql } from 'drizzle-orm';
import * as pg from 'drizzle-orm/pg-core';
import {
  budgetExhaustions,
  budgetPeriods,
  budgetScopes,
  type BudgetExhaustion,
  type BudgetPeriod,
  type BudgetScope,
} from '@holdfast/protocol/inputs/spend-budget-input';

const inList = (values: readonly string[]) => sql.raw(values.map((value) => `'${value}'`).join(', '));

/**
 * A spend budget of the fleet: at most `limitMicros` spent per period (a UTC hour, day or month, the last hour
 * rolling, or a custom period) by the work in its scope (the whole fleet, an agent, a task owner, a queue, a step, a
 * downstream, a model). A period's start is budget_period_start() in SQL and periodStartOf() in the engine. Begins reserve their
 * estimate against every budget covering them; spend Holdfast only sees (reported attempts) is counted, not
 * refused. Set by admins on the Spend budgets page, audited.
 */
export const spendBudgets = pg.pgTable(
  'spend_budgets',
  {
    id: pg.bigserial('id', { mode: 'number' }).primaryKey(),
    name: pg.text('name').notNull().unique(),
    scope: pg.text('scope').$type<BudgetScope>().notNull(),
    /** What the scope names (an agent, an owner, a queue, a step, a downstream); '' for the fleet. */
    scopeValue: pg.text('scope_value').notNull().default(''),
    period: pg.text('period').$type<BudgetPeriod>().notNull(),
    /** A custom period's length in hours, and when its first period began; null for the other periods. */
    resetEveryHours: pg.integer('reset_every_hours'),
    resetFrom: pg.timestamp('reset_from', { withTimezone: true }),
    limitMicros: pg.bigint('limit_micros', { mode: 'number' }).notNull(),
    /** The shares of the limit that alert when reached, in percent, ascending. */
    warnPercents: pg.smallint('warn_percents').array().notNull(),
    /** What a begin past the limit is told: wait for the period to turn, or stop (do not retry). */
    onExhausted: pg.text('on_exhausted').$type<BudgetExhaustion>().notNull(),
    /** The share of the limit kept for first attempts: retries may use at most the rest. Null: no share kept. */
    firstAttemptPercent: pg.smallint('first_attempt_percent'),
    /**
     * The budgets file that keeps the budget (HOLDFAST_SPEND_BUDGETS_FILE, by its file name), or null for one kept
     * in the console. A file's budgets change only with the file: the console shows them read only.
     */
    keptIn: pg.text('kept_in'),
    updatedBy: pg.text('updated_by').notNull(),
    createdAt: pg.timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: pg.timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    pg.check('spend_budgets_scope_known', sql`${table.scope} in (${inList(budgetScopes)})`),
    pg.check('spend_budgets_period_known', sql`${table.period} in (${inList(budgetPeriods)})`),
    pg.check('spend_budgets_exhaustion_known', sql`${table.onExhausted} in (${inList(budgetExhaustions)})`),
    pg.check('spend_budgets_limit_positive', sql`${table.limitMicros} > 0`),
    pg.check(
      'spend_budgets_custom_reset',
      sql`(${table.period} = 'custom') = (${table.resetEveryHours} is not null and ${table.resetFrom} is not null)
        and coalesce(${table.resetEveryHours}, 1) > 0`,
    ),
  ],
);

/**
 * One stripe of a budget's spend in one period: what finished attempts cost (`spent`, of which `retrySpent` by
 * retries and `seen` by attempts Holdfast only saw), and what running attempts reserved. A period's spend is split
 * over BUDGET_STRIPES rows so that concurrent begins lock different rows: each stripe holds a share of the limit
 * (`share`, `retryShare`) and a begin reserves within one stripe's share; when none has room, the begin locks every
 * stripe and cuts the shares again from the period's totals (see budget-stripes.ts). `cutLimit` and `cutRetryCap`
 * are the limit and retry cap the shares were cut from: a changed budget is cut again by its next begin.
 * `refusals` and `warnedPercent` are kept on stripe 0.
 */
export const spendBudgetUsage = pg.pgTable(
  'spend_budget_usage',
  {
    budgetId: pg
      .bigint('budget_id', { mode: 'number' })
      .notNull()
      .references(() => spendBudgets.id, { onDelete: 'cascade' }),
    /** The period's start; for a rolling hour, the start of one of its five-minute buckets. */
    periodStart: pg.timestamp('period_start', { withTimezone: true }).notNull(),
    stripe: pg.smallint('stripe').notNull().default(0),
    spentMicros: pg.bigint('spent_micros', { mode: 'number' }).notNull().default(0),
    retrySpentMicros: pg.bigint('retry_spent_micros', { mode: 'number' }).notNull().default(0),
    seenMicros: pg.bigint('seen_micros', { mode: 'number' }).notNull().default(0),
    reservedMicros: pg.bigint('reserved_micros', { mode: 'number' }).notNull().default(0),
    retryReservedMicros: pg.bigint('retry_reserved_micros', { mode: 'number' }).notNull().default(0),
    shareMicros: pg.bigint('share_micros', { mode: 'number' }).notNull().default(0),
    retryShareMicros: pg.bigint('retry_share_micros', { mode: 'number' }).notNull().default(0),
    cutLimitMicros: pg.bigint('cut_limit_micros', { mode: 'number' }).notNull().default(-1),
    cutRetryCapMicros: pg.bigint('cut_retry_cap_micros', { mode: 'number' }).notNull().default(-1),
    refusals: pg.integer('refusals').notNull().default(0),
    /** The highest warning threshold (percent) already alerted in this period: each alerts once. */
    warnedPercent: pg.smallint('warned_percent').notNull().default(0),
  },
  (table) => [
    pg.primaryKey({ name: 'spend_budget_usage_pkey', columns: [table.budgetId, table.periodStart, table.stripe] }),
    pg.index('spend_budget_usage_period_idx').on(table.periodStart),
    // The periods whose shares are stale (a stripe overdrawn, or not cut yet): every begin's fast way asks.
    pg
      .index('spend_budget_usage_stale_idx')
      .on(table.budgetId, table.periodStart)
      .where(sql`${table.cutLimitMicros} = -1`),
  ],
);
