import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { ensureAttemptPartitions, listAttemptPartitions } from '../../../packages/engine/src/db/attempt-partitions';
import { attempts } from '../../../packages/engine/src/db/schema';
import { rollUpAttempts } from '../../../packages/engine/src/rollups/roll-up';
import { useTestDatabase } from '../../support/test-database';

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

describe('five-minute rollups', () => {
  const fineRows = async () =>
    database.db.execute<{ bucket: string; attempts: number; cost: number }>(sql`
      select to_char(bucket_start at time zone 'UTC', 'HH24:MI') as bucket, attempts::int, cost_micros::int as cost
      from attempt_rollups where grain = '5min' and agent = 'fine-agent' order by bucket_start`);
  const fineAgentRow = (taskId: string, startedAt: string) => ({ ...row(taskId, startedAt), agent: 'fine-agent' });

  it("rewrites the open hour's closed buckets each pass, and goes with the raw days", async () => {
    await database.db
      .insert(attempts)
      .values([
        fineAgentRow('f-1', '2026-09-25T10:02:00Z'),
        fineAgentRow('f-2', '2026-09-25T10:07:00Z'),
        fineAgentRow('f-3', '2026-09-25T11:31:00Z'),
        fineAgentRow('f-4', '2026-09-25T11:34:00Z'),
        fineAgentRow('f-5', '2026-09-25T11:35:30Z'),
      ]);
    const floor = new Date('2026-08-01T00:00:00Z');
    await rollUpAttempts(database.db, { now: new Date('2026-09-25T11:36:00Z'), retentionFloor: floor });
    // The closed hour's buckets, and the open hour's up to 11:35 (the bucket in progress is read raw).
    expect(await fineRows()).toEqual([
      { bucket: '10:00', attempts: 1, cost: 5 },
      { bucket: '10:05', attempts: 1, cost: 5 },
      { bucket: '11:30', attempts: 2, cost: 10 },
    ]);
    const [edges] = await database.db.execute<{ rolled_to: string; fine_rolled_to: string }>(sql`
      select to_char(rolled_to at time zone 'UTC', 'HH24:MI') as rolled_to,
        to_char(fine_rolled_to at time zone 'UTC', 'HH24:MI') as fine_rolled_to from rollup_state`);
    expect(edges).toEqual({ rolled_to: '11:00', fine_rolled_to: '11:35' });

    // A change to a row of a bucket already rolled shows at the next pass.
    await database.db.execute(sql`update attempts set cost_micros = 50 where task_id = 'f-3'`);
    await rollUpAttempts(database.db, { now: new Date('2026-09-25T11:41:00Z'), retentionFloor: floor });
    expect(await fineRows()).toEqual([
      { bucket: '10:00', attempts: 1, cost: 5 },
      { bucket: '10:05', attempts: 1, cost: 5 },
      { bucket: '11:30', attempts: 2, cost: 55 },
      { bucket: '11:35', attempts: 1, cost: 5 },
    ]);

    // Thirty days on, the raw log keeps 11:00 onwards of that day: the five-minute rows before go, the hourly stay.
    const { maintainAttemptLog } = await import('../../../packages/engine/src/rollups/retention');
    await maintainAttemptLog(database.db, {
      now: new Date('2026-10-25T11:00:00Z'),
      attemptRetentionDays: 30,
      rollupRetentionDays: 400,
    });
    expect((await fineRows()).map((entry) => entry.bucket)).toEqual(['11:30', '11:35']);
    const [hourly] = await database.db.execute<{ attempts: number }>(sql`
      select sum(attempts)::int as attempts from attempt_rollups where grain = 'hour' and agent = 'fine-agent'`);
    expect(hourly!.attempts).toBe(2);
  });
});
