import { bigint, numeric } from 'drizzle-orm/pg-core';

/**
 * The one definition of the figures the rollups keep: each figure's column, its
 * type, and how it is counted from the raw attempt log. The rollup tables'
 * columns, the SQL that sums them (packages/engine/src/rollups/figure-sql.ts) and the metrics'
 * tail are all made from this list, so a new figure is one entry here and a
 * migration.
 *
 * Every figure is a count or a micro-dollar sum, so every figure adds up across
 * buckets, spans and steps: summing a figure's rows is its only rule, and a
 * figure that does not add up (a percentile, a ratio) does not belong here.
 */

/** What makes an attempt a retry: every attempt after the first of its step. */
export const IS_RETRY = 'attempt_number > 1';
/** What makes an attempt the first of an execution (a task's pass of a step). */
const IS_FIRST_TRY = 'attempt_number = 1';

/** A count is bigint (2^63 attempts cannot be stored); money is numeric (see microSum). */
export type FigureType = 'count' | 'money';

export interface Figure {
  /** The column in every table that holds the figure, and the alias every statement gives it. */
  column: string;
  type: FigureType;
  /** Its aggregate over raw attempt rows (`from attempts ... group by ...`). */
  raw: string;
}

export const FIGURES = {
  attempts: { column: 'attempts', type: 'count', raw: 'count(*)' },
  retries: { column: 'retries', type: 'count', raw: `count(*) filter (where ${IS_RETRY})` },
  failures: { column: 'failures', type: 'count', raw: `count(*) filter (where outcome = 'failed')` },
  /** Attempt-1 rows: the executions first-try success is measured over. */
  executions: { column: 'executions', type: 'count', raw: `count(*) filter (where ${IS_FIRST_TRY})` },
  firstTrySuccesses: {
    column: 'first_try_successes',
    type: 'count',
    raw: `count(*) filter (where ${IS_FIRST_TRY} and outcome = 'succeeded')`,
  },
  costMicros: { column: 'cost_micros', type: 'money', raw: 'coalesce(sum(cost_micros), 0)' },
  /**
   * Retry-attributable spend: what executions spent beyond one try, each attempt's share as stored when it ended
   * (attempts.retry_cost_micros; packages/engine/src/core/attempts/retry-spend.ts). Part of the spend above, always shown beside it.
   */
  retryCostMicros: {
    column: 'retry_cost_micros',
    type: 'money',
    raw: 'coalesce(sum(retry_cost_micros), 0)',
  },
} as const satisfies Record<string, Figure>;

export type FigureName = keyof typeof FIGURES;

/** Every figure, in the order of the rollup tables' columns. */
export const ALL_FIGURES = Object.keys(FIGURES) as FigureName[];
export type CountFigure = {
  [Name in FigureName]: (typeof FIGURES)[Name]['type'] extends 'count' ? Name : never;
}[FigureName];
/** The figures that count attempts (the others sum money). */
export const COUNT_FIGURES = ALL_FIGURES.filter((name): name is CountFigure => FIGURES[name].type === 'count');
/** What the fleet's sums per bucket keep (all_steps_rollups): the Overview's chart. */
export const FLEET_FIGURES = ['attempts', 'retries', 'costMicros', 'retryCostMicros'] as const satisfies FigureName[];
/** What attempt_totals keeps per step, behind the Prometheus counters. */
export const STEP_TOTAL_FIGURES = [
  'attempts',
  'retries',
  'costMicros',
  'retryCostMicros',
] as const satisfies FigureName[];
/** What the Prometheus counters count: the step totals, and failures (kept per class, in failure_totals). */
export const COUNTER_FIGURES = [...STEP_TOTAL_FIGURES, 'failures'] as const satisfies FigureName[];

/**
 * A stored sum of micro-dollars. numeric, not bigint: attempts may cost up to
 * 10^12 each (packages/protocol/src/money-limits.ts), so a bigint (2^63, about 9.2 x 10^18)
 * would overflow at 9.2 million attempts at the limit in one row, which a
 * month's span, a day or the counters behind /metrics can hold; an overflow
 * would fail the rollup pass and every page reading it. Unbounded numeric,
 * holding whole micro-dollars (every sum is of integer costs); postgres.js
 * returns it as a string.
 */
export const microSum = (name: string) => numeric(name);

const countColumn = (name: string) => bigint(name, { mode: 'number' }).notNull();
const moneyColumn = (name: string) => microSum(name).notNull();
type ColumnOf<Name extends FigureName> = (typeof FIGURES)[Name]['type'] extends 'money'
  ? ReturnType<typeof moneyColumn>
  : ReturnType<typeof countColumn>;

/**
 * The figures' columns, for a rollup table's definition (`{ ...keyColumns, ...figureColumns() }`), in the
 * list's order. Fresh builders each call: drizzle builds one table's column from each.
 */
export function figureColumns<Names extends FigureName = FigureName>(
  names: readonly Names[] = ALL_FIGURES as Names[],
): { [Name in Names]: ColumnOf<Name> } {
  return Object.fromEntries(
    names.map((name) => {
      const figure: Figure = FIGURES[name];
      return [name, figure.type === 'money' ? moneyColumn(figure.column) : countColumn(figure.column)];
    }),
  ) as { [Name in Names]: ColumnOf<Name> };
}
