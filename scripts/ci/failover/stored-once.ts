import { sql } from 'drizzle-orm';
import type { Database } from '@holdfast/engine/db';
import { ATTEMPTS_PER_BATCH, type WriterLog } from '../faults/writers';

/** Acknowledged batches not stored exactly once, and stored batches no writer was told about. */
export async function batchesNotStoredOnce(
  db: Database,
  log: WriterLog,
  prefix: string,
): Promise<{ notOnce: string[]; unexplained: string[] }> {
  const rows = await db.execute<{ batch: string; rows: number }>(sql`
    select split_part(task_id, '#', 1) as batch, count(*)::int as rows from attempts
    where agent = 'fault-writer' and task_id like ${`${prefix}-%`} group by 1`);
  const rowsByBatch = new Map(rows.map((row) => [row.batch, row.rows]));
  const notOnce = log.acked
    .filter((batch) => rowsByBatch.get(batch) !== ATTEMPTS_PER_BATCH)
    .map((batch) => `${batch}: ${rowsByBatch.get(batch) ?? 0} rows`);
  // A batch given up on may or may not be stored (its request was never answered); one neither acknowledged nor given up is a mystery.
  const unexplained = [...rowsByBatch.keys()].filter(
    (batch) => !log.acked.includes(batch) && !log.gaveUp.includes(batch),
  );
  return { notOnce, unexplained };
}
