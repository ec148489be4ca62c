import { sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import {
  deleteExecutionShapesBefore,
  hoursOfChangedExecutions,
  mergeHours,
  rollExecutionShapes,
} from '../execution-shapes';
import type { RollupFamily } from './family';
import { saveFamilyState } from '../family-state';

/** The family's name, its row in rollup_family_state. */
export const EXECUTION_SHAPES = 'execution shapes';

const HOUR_MS = 3_600_000;

/**
 * The retry-policy simulator's input (execution-shapes.ts): the shapes of every hour whose executions changed since
 * the last pass, or, the first time and after a restore, of every hour kept raw up to the open one. They go with
 * the raw log: the simulator replays only what it still holds.
 */
export const executionShapesFamily: RollupFamily = {
  name: EXECUTION_SHAPES,
  async afterRanges(tx, pass) {
    // `filled`: the shapes hold every hour kept raw. A migration that changes what a shape holds sets it false.
    const filled = pass.stateOf(EXECUTION_SHAPES).filled === true;
    const fillAll = pass.restored || pass.firstPass || !filled;
    const ranges = fillAll
      ? [[Math.max((await earliestHour(tx)) ?? pass.openHour, pass.floor), pass.openHour + HOUR_MS] as const]
      : mergeHours(await hoursOfChangedExecutions(tx, pass));
    for (const [start, end] of ranges) await rollExecutionShapes(tx, [start, end]);
    if (!filled) await saveFamilyState(tx, EXECUTION_SHAPES, { filled: true });
  },
  deleteWithRawLog: (tx, rawFloor) => deleteExecutionShapesBefore(tx, rawFloor),
};

/** The first hour the raw log holds (epoch ms), if it holds any. */
export async function earliestHour(tx: Transaction): Promise<number | undefined> {
  const [row] = await tx.execute<{ hour: Date | null }>(
    sql`select date_trunc('hour', min(started_at), 'UTC') as hour from attempts`,
  );
  return row?.hour ? new Date(row.hour).getTime() : undefined;
}
