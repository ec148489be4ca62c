import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { ensureAttemptPartitions, listAttemptPartitions } from '../../lib/db/attempt-partitions';
import { attempts } from '../../lib/db/schema';
import { rollUpAttempts } from '../../lib/rollups/roll-up';
import { useTestDatabase } from '../support/test-database';

const database = useTestDatabase();

const row = (taskId: string, startedAt: string) => ({
  taskId,
  agent: 'sweep-agent',
  step: 'step',
  attemptNumber: 1,
  startedAt: new Date(startedAt),
  finishedAt: new Date(new Date(startedAt).getTime() + 100),
  latencyMs: 100,
  outcome: 'succeeded' as const,
  costMicros: 5,
});

describe('attempt partitions', () => {
  it("moves a day's rows out of the default partition when the day gets its own", async () => {
    await database.db
      .insert(attempts)
      .values([
        row('p-1', '2026-09-10T10:00:00Z'),
        row('p-2', '2026-09-10T23:59:59Z'),
        row('p-3', '2026-09-11T00:00:00Z'),
      ]);
    const created = await ensureAttemptPartitions(database.db, {
      from: new Date('2026-09-10T12:00:00Z'),
      to: new Date('2026-09-10T13:00:00Z'),
    });
    expect(created).toEqual(['attempts_p20260910']);
    const placed = await database.db.execute<{ task_id: string; partition: string }>(sql`
      select task_id, tableoid::regclass::text as partition from attempts where task_id like 'p-%' order by task_id`);
    expect(placed.map((entry) => [entry.task_id, entry.partition])).toEqual([
      ['p-1', 'attempts_p20260910'],
      ['p-2', 'attempts_p20260910'],
      ['p-3', 'attempts_default'],
    ]);
    expect((await listAttemptPartitions(database.db)).map((partition) => partition.name)).toContain(
      'attempts_p20260910',
    );
  });
});

describe('rollUpAttempts', () => {
  it('rolls everything up afresh when the database was restored into another cluster', async () => {
    await database.db.insert(attempts).values(row('r-1', '2026-09-20T10:30:00Z'));
    const now = new Date('2026-09-20T12:10:00Z');
    const floor = new Date('2026-08-01T00:00:00Z');
    await rollUpAttempts(database.db, { now, retentionFloor: floor });
    // As after a restore: the stored transaction id is far ahead of this cluster's.
    await database.db.execute(sql`update rollup_state set processed_xid = '900000000000'::xid8`);
    await database.db.execute(sql`delete from attempt_rollups`);
    const again = await rollUpAttempts(database.db, { now, retentionFloor: floor });
    expect(again.hoursRolled).toBeGreaterThan(0);
    const [rolled] = await database.db.execute<{ attempts: string }>(sql`
      select coalesce(sum(attempts), 0) as attempts from attempt_rollups where grain = 'hour' and agent = 'sweep-agent'`);
    expect(Number(rolled!.attempts)).toBeGreaterThanOrEqual(1);
    const [state] = await database.db.execute<{ behind: boolean }>(
      sql`select processed_xid < '900000000000'::xid8 as behind from rollup_state`,
    );
    expect(state!.behind).toBe(true);
  });
});
