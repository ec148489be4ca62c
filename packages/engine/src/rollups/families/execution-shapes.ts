import { sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import {
  deleteExecutionShapesBefore,
  hoursOfChangedExecutions,
  mergeHours,
  rollExecutionShapes,
} from '../execution-shapes';
import type { RollupFamily } from './family';

const HOUR_MS = 3_600_000;

/**
 * The retry-policy simulator's input (execution-shapes.ts): the shapes of every hour whose executions changed since
 * the last pass, or, the first time and after a restore, of every hour kept raw up to the open one. They go with
 * the raw log: the simulator replays only what it still holds.
 */
export const executionShapesFamily: RollupFamily = {
  name: 'execution shapes',
  async afterRanges(tx, pass) {
    const fillAll = pass.restored || pass.firstPass || !pass.state.execution_shapes_filled;
    const ranges = fillAll
      ? [[Math.max((await earliestHour(tx)) ?? pass.openHour, pass.floor), pass.openHour + HOUR_MS] as const]
      : mergeHours(await hoursOfChangedExecutions(tx, pass));
    for (const [start, end] of ranges) await rollExecutionShapes(tx, [start, end]);
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
