import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { clearHold, ensureTaskBudget, finishTask, runStep } from '../../../packages/engine/src/core';
import { freezeIdleTasks } from '../../../packages/engine/src/core/holds/freeze-idle-tasks';
import { runDueSweeps } from '../../../packages/engine/src/scheduler/sweeps';
import { holds, retryPoolUsage, taskBudgets } from '../../../packages/engine/src/db/schema';
import { addKnownOwners } from '../../support/known-owners';
import { useTestDatabase } from '../../support/test-database';
import { aPerson, anAgent } from '../../support/actors';

const database = useTestDatabase();
// The owners its agents name are known (an unknown one would be given the default owner).
beforeAll(() => addKnownOwners(database.db, ['person:owner@example.com']));
const owner = aPerson('viewer', 'owner@example.com', ['payments']);
const agent = anAgent('x');

async function idleTask(days: number) {
  const taskId = `task-${randomUUID()}`;
  await ensureTaskBudget(database.db, { taskId, agent: 'research', owner: 'person:owner@example.com' });
  await database.sql`update task_budgets set updated_at = now() - make_interval(days => ${days}) where task_id = ${taskId}`;
  return taskId;
}

describe('freezeIdleTasks', () => {
  it('parks tasks idle past the limit with a frozen hold for their owner, and leaves recent ones', async () => {
    const idle = await idleTask(5);
    const recent = await idleTask(1);
    const { frozen } = await freezeIdleTasks({ db: database.db }, { idleDays: 3 });

    expect(frozen).toContain(idle);
    expect(frozen).not.toContain(recent);
    const [hold] = await database.db
      .select()
      .from(holds)
      .where(and(eq(holds.itemType, 'task'), eq(holds.itemId, idle)));
    expect(hold).toMatchObject({
      reason: 'frozen',
      owner: 'person:owner@example.com',
      status: 'open',
      openedBy: 'system:sweeper',
    });
    expect((await freezeIdleTasks({ db: database.db }, { idleDays: 3 })).frozen).not.toContain(idle); // once

    // A frozen task does no work until its owner resumes it.
    const step = { taskId: idle, agent: 'research', owner: 'person:owner@example.com', step: 'plan', content: {} };
    expect(await runStep({ db: database.db }, step, async () => ({ result: 'ran' }))).toMatchObject({
      status: 'stop',
      code: 'TASK_FROZEN',
      reason: 'task_frozen',
      holdId: hold!.id,
    });
    await clearHold(
      { db: database.db, actor: owner },
      { holdId: hold!.id, resolution: 'resume', note: 'still wanted' },
    );
    const [budget] = await database.db.select().from(taskBudgets).where(eq(taskBudgets.taskId, idle));
    expect(budget?.status).toBe('active');
    expect(
      await runStep({ db: database.db }, { ...step, step: 'plan_again' }, async () => ({ result: 'ran' })),
    ).toMatchObject({ status: 'completed' });
  });

  it('never freezes a task that succeeded and was finished, however long ago, while an idle active one is', async () => {
    const finished = `task-${randomUUID()}`;
    await ensureTaskBudget(database.db, { taskId: finished, agent: 'ingest', owner: 'person:owner@example.com' });
    expect(
      await finishTask({ db: database.db, actor: agent }, { taskId: finished, outcome: 'completed' }),
    ).toMatchObject({ changed: true });
    await database.sql`update task_budgets set updated_at = now() - interval '4 days', finished_at = now() - interval '4 days' where task_id = ${finished}`;
    const idle = await idleTask(4);

    const { frozen } = await freezeIdleTasks({ db: database.db }, { idleDays: 3 });

    expect(frozen).toContain(idle);
    expect(frozen).not.toContain(finished);
    const [task] = await database.db
      .select({ status: taskBudgets.status })
      .from(taskBudgets)
      .where(eq(taskBudgets.taskId, finished));
    expect(task?.status).toBe('completed');
    expect(
      await database.db
        .select()
        .from(holds)
        .where(and(eq(holds.itemType, 'task'), eq(holds.itemId, finished))),
    ).toEqual([]);
  });
});

describe('runDueSweeps', () => {
  it('runs every sweep once per bucket, however often it fires', async () => {
    const now = new Date('2031-01-01T10:07:00Z');
    const first = await runDueSweeps({ db: database.db }, {}, now);
    // Within every job's bucket: the bulk-redrive resumption's is the shortest, 30 s by default.
    const second = await runDueSweeps({ db: database.db }, {}, new Date('2031-01-01T10:07:20Z'));
    expect(first.map((report) => [report.job, report.ran])).toEqual([
      ['roll_up_attempts', true],
      ['maintain_attempt_log', true],
      ['resume_bulk_redrives', true],
      ['delete_expired_keys', true],
      ['release_stale_slots', true],
      ['escalate_stale_locks', true],
      ['escalate_uncertain_keys', true],
      ['reconcile_holds', true],
      ['delete_old_retry_pool_usage', true],
      ['freeze_idle_tasks', true],
    ]);
    expect(second.every((report) => !report.ran)).toBe(true);
    const nextSlotBucket = await runDueSweeps({ db: database.db }, {}, new Date('2031-01-01T10:11:00Z'));
    // The rollup, bulk-redrive resumption and reconciliation are due every minute, the slot sweep
    // and the escalations every five, the rest hourly.
    expect(nextSlotBucket.filter((report) => report.ran).map((report) => report.job)).toEqual([
      'roll_up_attempts',
      'resume_bulk_redrives',
      'release_stale_slots',
      'escalate_stale_locks',
      'escalate_uncertain_keys',
      'reconcile_holds',
    ]);
  });

  it("takes its buckets from the context's clock when no time is given", async () => {
    const reports = await runDueSweeps({ db: database.db, clock: () => new Date('2032-06-01T08:03:30Z') });
    expect(reports.find((report) => report.job === 'reconcile_holds')).toMatchObject({
      ran: true,
      bucket: '2032-06-01T08:03:00.000Z',
    });
    expect(reports.find((report) => report.job === 'escalate_uncertain_keys')).toMatchObject({
      ran: true,
      bucket: '2032-06-01T08:00:00.000Z',
    });
  });
});

describe('resume_bulk_redrives', () => {
  it('looks for stalled runs as often as a run may stay quiet, from every 10 s to every minute', async () => {
    const bucketsOf = async (bulkRedriveStalledMs: number, at: string) =>
      (await runDueSweeps({ db: database.db }, { bulkRedriveStalledMs }, new Date(at))).find(
        (report) => report.job === 'resume_bulk_redrives',
      );
    expect(await bucketsOf(3_000, '2034-01-01T10:07:07Z')).toMatchObject({ bucket: '2034-01-01T10:07:00.000Z' });
    expect(await bucketsOf(3_000, '2034-01-01T10:07:12Z')).toMatchObject({
      bucket: '2034-01-01T10:07:10.000Z',
      ran: true,
    });
    expect(await bucketsOf(20_000, '2034-01-01T11:07:50Z')).toMatchObject({ bucket: '2034-01-01T11:07:40.000Z' });
    expect(await bucketsOf(600_000, '2034-01-01T12:07:50Z')).toMatchObject({ bucket: '2034-01-01T12:07:00.000Z' });
  });
});

describe('delete_old_retry_pool_usage', () => {
  it('deletes retry pool usage slices older than a day, breaker slices older than two hours, and keeps the rest', async () => {
    const now = new Date('2033-03-03T12:30:00Z');
    const agent = `agent-${randomUUID()}`;
    await database.sql`insert into retry_pool_usage (agent, step, slice_start, first_attempts) values
      (${agent}, 'publish', ${'2033-03-02T12:00:00Z'}::timestamptz, 1),
      (${agent}, 'publish', ${'2033-03-02T13:00:00Z'}::timestamptz, 1),
      (${agent}, 'publish', ${'2033-03-03T12:25:00Z'}::timestamptz, 1)`;
    const target = `step:${agent}/publish`;
    await database.sql`insert into breaker_slices (target, slice_start, attempts, failures) values
      (${target}, ${'2033-03-03T10:00:00Z'}::timestamptz, 3, 1),
      (${target}, ${'2033-03-03T10:35:00Z'}::timestamptz, 3, 1)`;

    const reports = await runDueSweeps({ db: database.db }, {}, now);

    expect(reports.find((report) => report.job === 'delete_old_retry_pool_usage')?.result?.changed).toBe(2);
    const breakerSlicesLeft = await database.sql<{ slice_start: string }[]>`
      select slice_start from breaker_slices where target = ${target}`;
    expect(breakerSlicesLeft.map((row) => new Date(row.slice_start).toISOString())).toEqual([
      '2033-03-03T10:35:00.000Z',
    ]);
    const left = await database.db
      .select({ sliceStart: retryPoolUsage.sliceStart })
      .from(retryPoolUsage)
      .where(eq(retryPoolUsage.agent, agent))
      .orderBy(retryPoolUsage.sliceStart);
    expect(left.map((row) => row.sliceStart.toISOString())).toEqual([
      '2033-03-02T13:00:00.000Z',
      '2033-03-03T12:25:00.000Z',
    ]);
  });
});

describe('maintain_attempt_log', () => {
  it("deletes sweep leases completed over a week ago, keeping each job's newest finished pass, and keeps recent ones", async () => {
    await database.sql`insert into leases (job, bucket, holder, expires_at, completed_at) values
      ('old_job', '2020-01-01T00:00:00.000Z', 'h', now(), now() - interval '8 days'),
      ('old_job', '2020-01-02T00:00:00.000Z', 'h', now(), now() - interval '1 day'),
      ('failing_job', '2020-01-01T00:00:00.000Z', 'h', now(), now() - interval '9 days'),
      ('failing_job', '2020-01-02T00:00:00.000Z', 'h', now(), now() - interval '8 days'),
      ('recent_job', '2020-01-01T00:00:00.000Z', 'h', now(), now() - interval '1 day')`;
    const { maintainAttemptLog } = await import('../../../packages/engine/src/rollups/retention');
    const done = await maintainAttemptLog(database.db, {
      now: new Date(),
      attemptRetentionDays: 30,
      rollupRetentionDays: 400,
    });
    expect(done.leasesDeleted).toBeGreaterThanOrEqual(2);
    // Older than a week goes, except a job's newest finished pass: a job failing for 8 days still shows when it last ran.
    const left = await database.sql`
      select job, bucket from leases where job in ('old_job', 'failing_job', 'recent_job') order by job, bucket`;
    expect(left.map((row) => `${row.job} ${row.bucket}`)).toEqual([
      'failing_job 2020-01-02T00:00:00.000Z',
      'old_job 2020-01-02T00:00:00.000Z',
      'recent_job 2020-01-01T00:00:00.000Z',
    ]);
  });
});
