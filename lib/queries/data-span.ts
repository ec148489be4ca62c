import 'server-only';
import { sql } from 'drizzle-orm';
import type { Executor } from '@holdfast/engine/db';

/**
 * Where the figures' history begins: the earliest bucket the rollups hold, at any grain (daily rows outlive the
 * raw log, five-minute rows are the newest). Null before the first rollup pass. A window reaching back past it
 * holds less than its name says, and pages state the span it really holds.
 *
 * Read from all_steps_rollups, a row per bucket whatever the number of steps, by its primary key (grain,
 * bucket_start): three index probes, never a scan of the attempt log, whose started_at index (BRIN) cannot
 * give a minimum.
 */
export async function readDataBegins(db: Executor): Promise<Date | null> {
  const [row] = await db.execute<{ begins: Date | string | null }>(sql`
    select least(
      (select min(bucket_start) from all_steps_rollups where grain = 'day'),
      (select min(bucket_start) from all_steps_rollups where grain = 'hour'),
      (select min(bucket_start) from all_steps_rollups where grain = '5min')
    ) as begins`);
  return row?.begins ? new Date(row.begins) : null;
}
