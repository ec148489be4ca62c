import { type SQL, sql } from 'drizzle-orm';
import { ALL_FIGURES, FIGURES, type FigureName } from '../db/schema/figures';

/**
 * The figures (packages/engine/src/db/schema/figures.ts) as the fragments the rollups' SQL is
 * built from, so no statement lists the figures by hand. Each takes the
 * figures it is for (all by default; the fleet's sums and the counters keep
 * fewer) and keeps their order, the rollup tables' column order.
 */
type Figures = readonly FigureName[];

const columnOf = (name: FigureName) => FIGURES[name].column;
const sqlTypeOf = (name: FigureName) => (FIGURES[name].type === 'money' ? 'numeric' : 'bigint');
const joined = (names: Figures, part: (name: FigureName) => string) => sql.raw(names.map(part).join(', '));

/** `attempts, retries, …`: the figures' columns, for an insert's column list or a plain select. */
export const figureList = (names: Figures = ALL_FIGURES): SQL => joined(names, columnOf);

/**
 * Each figure counted from raw attempt rows, named by its column. Cast to its stored type: costs stay numeric,
 * never bigint, which 9.2 million attempts at the cost limit overflow; counts bigint.
 */
export const rawFigures = (names: Figures = ALL_FIGURES): SQL =>
  joined(names, (name) => `(${FIGURES[name].raw})::${sqlTypeOf(name)} as ${columnOf(name)}`);

/** `sum(attempts) as attempts, …`: rows of figures summed per group. */
export const summedFigures = (names: Figures = ALL_FIGURES): SQL =>
  joined(names, (name) => `sum(${columnOf(name)}) as ${columnOf(name)}`);

/** The figures as they are (1), or negated (-1): what a subtracted part or a replaced row contributes. */
export const signedFigures = (sign: 1 | -1, names: Figures = ALL_FIGURES): SQL =>
  sign === 1 ? figureList(names) : joined(names, (name) => `-${columnOf(name)} as ${columnOf(name)}`);

/** `0::bigint as attempts, …`: the columns of an empty relation with the figures' types. */
export const zeroFigures = (names: Figures = ALL_FIGURES): SQL =>
  joined(names, (name) => `0::${sqlTypeOf(name)} as ${columnOf(name)}`);

/** `attempts bigint, …, cost_micros numeric`: the figures' columns in a temporary table or a record set. */
export const figureColumnTypes = (names: Figures = ALL_FIGURES, type?: 'numeric'): SQL =>
  joined(names, (name) => `${columnOf(name)} ${type ?? sqlTypeOf(name)}`);
