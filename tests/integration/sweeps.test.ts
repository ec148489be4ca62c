import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { clearHold, ensureTaskBudget, freezeIdleTasks, runDueSweeps, runStep, type Actor } from '../../lib/core';
import { holds, taskBudgets } from '../../lib/db/schema';
import { useTestDatabase } from '../support/test-database';

const database = useTestDatabase();
const owner: Actor = { type: 'person', id: 'owner@example.com', role: 'viewer', teams: ['payments'] };

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
    const frozen = await freezeIdleTasks({ db: database.db }, { idleDays: 3 });

    expect(frozen).toContain(idle);
    expect(frozen).not.toContain(recent);
    const [hold] = await database.db.select().from(holds).where(and(eq(holds.itemType, 'task'), eq(holds.itemId, idle)));
    expect(hold).toMatchObject({ reason: 'frozen', owner: 'person:owner@example.com', status: 'open', openedBy: 'system:sweeper' });
    expect(await freezeIdleTasks({ db: database.db }, { idleDays: 3 })).not.toContain(idle); // once

    // A frozen task does no work until its owner resumes it.
    const step = { taskId: idle, agent: 'research', owner: 'person:owner@example.com', step: 'plan', content: {} };
    expect(await runStep({ db: database.db }, step, async () => ({ result: 'ran' }))).toMatchObject({ status: 'do_not_retry', reason: 'task is frozen' });
    await clearHold({ db: database.db, actor: owner }, { holdId: hold!.id, resolution: 'resume', note: 'still wanted' });
    const [budget] = await database.db.select().from(taskBudgets).where(eq(taskBudgets.taskId, idle));
    expect(budget?.status).toBe('active');
    expect(await runStep({ db: database.db }, { ...step, step: 'plan_again' }, async () => ({ result: 'ran' }))).toMatchObject({ status: 'completed' });
  });
});

describe('runDueSweeps', () => {
  it('runs every sweep once per bucket, however often it fires', async () => {
    const now = new Date('2031-01-01T10:07:00Z');
    const first = await runDueSweeps({ db: database.db }, {}, now);
    const second = await runDueSweeps({ db: database.db }, {}, new Date('2031-01-01T10:07:40Z'));
    expect(first.map((report) => [report.job, report.ran])).toEqual([
      ['roll_up_attempts', true],
      ['maintain_attempt_log', true],
      ['resume_bulk_redrives', true],
      ['delete_expired_keys', true],
      ['release_stale_slots', true],
      ['freeze_idle_tasks', true],
    ]);
    expect(second.every((report) => !report.ran)).toBe(true);
    const nextSlotBucket = await runDueSweeps({ db: database.db }, {}, new Date('2031-01-01T10:11:00Z'));
    // The rollup and bulk-redrive resumption are due every minute, the slot sweep every five, the rest hourly.
    expect(nextSlotBucket.filter((report) => report.ran).map((report) => report.job)).toEqual(['roll_up_attempts', 'resume_bulk_redrives', 'release_stale_slots']);
  });
});

describe('maintain_attempt_log', () => {
  it('deletes sweep leases completed over a week ago, and keeps recent ones', async () => {
    await database.sql`insert into leases (job, bucket, holder, expires_at, completed_at) values
      ('old_job', '2020-01-01T00:00:00.000Z', 'h', now(), now() - interval '8 days'),
      ('recent_job', '2020-01-01T00:00:00.000Z', 'h', now(), now() - interval '1 day')`;
    const { maintainAttemptLog } = await import('../../lib/rollups/retention');
    const done = await maintainAttemptLog(database.db, { now: new Date(), attemptRetentionDays: 30, rollupRetentionDays: 400 });
    expect(done.leasesDeleted).toBeGreaterThanOrEqual(1);
    const left = await database.sql`select job from leases where job in ('old_job', 'recent_job')`;
    expect(left.map((row) => row.job)).toEqual(['recent_job']);
  });
});
