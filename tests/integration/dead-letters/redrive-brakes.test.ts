import { randomUUID } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  clearHold,
  deadLetterTask,
  previewBulkRedrive,
  redriveDeadLetter,
  runBulkRedrive,
  startBulkRedrive,
  type Actor,
  type CoreContext,
} from '../../../packages/engine/src/core';
import { auditLog, deadLetters, holds, redrives, taskBudgets } from '../../../packages/engine/src/db/schema';
import { useTestDatabase } from '../../support/test-database';
import { admin, aPerson, anAgent } from '../../support/actors';

const database = useTestDatabase();
const responder = aPerson('responder', 'rex@example.com');
const agent = anAgent('publishing');
const minutes = (count: number) => count * 60_000;
const days = (count: number) => count * 86_400_000;

/** A clock the test moves by hand: the brakes judge by it instead of the wall clock. */
function testClock() {
  let now = new Date();
  return {
    now: () => now,
    advance: (ms: number) => {
      now = new Date(now.getTime() + ms);
    },
  };
}

/** A task with its budget, first seen `firstSeenAgo` ago (by the database's clock). */
async function makeTask(options: { queue?: string; firstSeenAgo?: number } = {}) {
  const taskId = `task-${randomUUID()}`;
  await database.db.insert(taskBudgets).values({
    taskId,
    agent: 'publishing',
    queue: options.queue ?? 'web',
    owner: 'team:web',
    retryAllowance: 2,
    spendCeilingMicros: 1_000_000,
    timeAllowanceMs: 3_600_000,
    deadline: new Date(Date.now() + 3_600_000),
    createdAt: new Date(Date.now() - (options.firstSeenAgo ?? 0)),
  });
  return { taskId, queue: options.queue ?? 'web' };
}

/** Exhausts the task (again): one pending dead letter with its open hold. */
async function deadLetter(task: { taskId: string; queue: string }) {
  const { deadLetter, hold } = await deadLetterTask(database.db, agent, {
    taskId: task.taskId,
    agent: 'publishing',
    step: 'publish',
    queue: task.queue,
    payload: { page: task.taskId },
    reason: 'retry_ceiling',
    errorClass: 'transient',
    lastError: '503 from the CDN',
    attempts: 3,
    spendMicros: 300,
    owner: 'team:web',
  });
  return { deadLetterId: deadLetter.id, holdId: hold.id };
}

async function budgetOf(taskId: string) {
  const [budget] = await database.db.select().from(taskBudgets).where(eq(taskBudgets.taskId, taskId));
  return budget!;
}

async function auditOf(deadLetterId: number) {
  return database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.targetType, 'dead_letter'), eq(auditLog.targetId, String(deadLetterId))));
}

async function auditCountBy(actor: Actor): Promise<number> {
  const [row] = await database.sql<
    { count: number }[]
  >`select count(*)::int as count from audit_log where actor_id = ${actor.id}`;
  return row?.count ?? 0;
}

/** Redrives the task `count` times, `gap` apart by the clock, dead-lettering it again after each. */
async function redriveRepeatedly(
  ctx: CoreContext,
  clock: ReturnType<typeof testClock>,
  task: { taskId: string; queue: string },
  count: number,
  gap = minutes(11),
) {
  let current = await deadLetter(task);
  for (let index = 0; index < count; index += 1) {
    if (index > 0) clock.advance(gap);
    await redriveDeadLetter(ctx, { deadLetterId: current.deadLetterId, reason: `attempt ${index + 1}` });
    current = await deadLetter(task);
  }
  return current;
}

/** The brake refusal leaves everything as it was: dead letter, hold, budget, outbox and audit. */
async function expectNothingWritten(
  taskId: string,
  letter: { deadLetterId: number; holdId: number },
  budgetBefore: typeof taskBudgets.$inferSelect,
) {
  const [row] = await database.db.select().from(deadLetters).where(eq(deadLetters.id, letter.deadLetterId));
  expect(row).toMatchObject({ status: 'pending', redriveCount: 0 });
  const [hold] = await database.db.select().from(holds).where(eq(holds.id, letter.holdId));
  expect(hold?.status).toBe('open');
  expect(await budgetOf(taskId)).toEqual(budgetBefore);
  expect(await database.db.select().from(redrives).where(eq(redrives.deadLetterId, letter.deadLetterId))).toEqual([]);
  expect(await auditOf(letter.deadLetterId)).toEqual([]);
}

describe('redrive brakes', () => {
  it('count redrives and stamp the last one on the task, keeping the spend that running attempts reserved', async () => {
    const clock = testClock();
    const task = await makeTask();
    const letter = await deadLetter(task);
    await database.db
      .update(taskBudgets)
      .set({ reservedMicros: 500, retriesUsed: 2, spendMicros: 900 })
      .where(eq(taskBudgets.taskId, task.taskId));

    await redriveDeadLetter(
      { db: database.db, actor: responder, clock: clock.now },
      { deadLetterId: letter.deadLetterId, reason: 'CDN back' },
    );
    const budget = await budgetOf(task.taskId);
    expect(budget).toMatchObject({
      status: 'active',
      redrivesUsed: 1,
      lastRedriveAt: clock.now(),
      retriesUsed: 0,
      spendMicros: 0,
      reservedMicros: 500,
    });
    expect(budget.deadline).toEqual(new Date(clock.now().getTime() + 3_600_000));
  });

  it('refuse the 4th redrive of one task and write nothing', async () => {
    const clock = testClock();
    const ctx = { db: database.db, actor: responder, clock: clock.now };
    const task = await makeTask();
    const fourth = await redriveRepeatedly(ctx, clock, task, 3);
    expect((await budgetOf(task.taskId)).redrivesUsed).toBe(3);
    clock.advance(minutes(11));

    const before = await budgetOf(task.taskId);
    const refused = redriveDeadLetter(ctx, { deadLetterId: fourth.deadLetterId, reason: 'one more time' });
    await expect(refused).rejects.toMatchObject({ code: 'REDRIVE_REFUSED', rules: ['redrive_limit'] });
    await expect(refused).rejects.toThrow('already redriven 3 times (at most 3)');
    await expectNothingWritten(task.taskId, fourth, before);
  });

  it('refuse a redrive within the cool-down, and allow it once the cool-down has passed', async () => {
    const clock = testClock();
    const ctx = { db: database.db, actor: responder, clock: clock.now };
    const task = await makeTask();
    const second = await redriveRepeatedly(ctx, clock, task, 1);
    clock.advance(minutes(4));

    const before = await budgetOf(task.taskId);
    const refused = redriveDeadLetter(ctx, { deadLetterId: second.deadLetterId, reason: 'again' });
    await expect(refused).rejects.toMatchObject({ code: 'REDRIVE_REFUSED', rules: ['redrive_cooldown'] });
    await expect(refused).rejects.toThrow('last redriven 4 min ago (wait 10 min between redrives)');
    await expectNothingWritten(task.taskId, second, before);

    clock.advance(minutes(6));
    expect((await redriveDeadLetter(ctx, { deadLetterId: second.deadLetterId, reason: 'again, later' })).changed).toBe(
      true,
    );
  });

  it('refuse a task older than the age limit, and follow the policy of the context', async () => {
    const task = await makeTask({ firstSeenAgo: days(9) });
    const letter = await deadLetter(task);
    const before = await budgetOf(task.taskId);
    const refused = redriveDeadLetter(
      { db: database.db, actor: responder },
      { deadLetterId: letter.deadLetterId, reason: 'old but gold' },
    );
    await expect(refused).rejects.toMatchObject({ code: 'REDRIVE_REFUSED', rules: ['task_too_old'] });
    await expect(refused).rejects.toThrow('first seen 9 days ago (older than 7 days)');
    await expectNothingWritten(task.taskId, letter, before);

    const lenient = { redriveBrakes: { maxRedrives: 3, cooldownMs: minutes(10), maxTaskAgeMs: days(30) } };
    const result = await redriveDeadLetter(
      { db: database.db, actor: responder, policy: lenient },
      { deadLetterId: letter.deadLetterId, reason: 'old but gold' },
    );
    expect(result.changed).toBe(true);
  });

  it('let an admin override them with a reason, and the audit record names the rules overridden', async () => {
    const clock = testClock();
    const task = await makeTask();
    const fourth = await redriveRepeatedly({ db: database.db, actor: responder, clock: clock.now }, clock, task, 3);
    clock.advance(minutes(2));

    const adminCtx = { db: database.db, actor: admin, clock: clock.now };
    await expect(
      redriveDeadLetter(adminCtx, { deadLetterId: fourth.deadLetterId, reason: 'no override asked' }),
    ).rejects.toMatchObject({ code: 'REDRIVE_REFUSED' });
    const result = await redriveDeadLetter(adminCtx, {
      deadLetterId: fourth.deadLetterId,
      reason: 'vendor fixed the bug; one last try',
      overrideBrakes: true,
    });
    expect(result.changed).toBe(true);
    expect(await budgetOf(task.taskId)).toMatchObject({ redrivesUsed: 4, lastRedriveAt: clock.now() });

    const [record] = await auditOf(fourth.deadLetterId);
    expect(record).toMatchObject({
      actorId: admin.id,
      action: 'dead_letter.redrive',
      reason: 'vendor fixed the bug; one last try',
      after: { status: 'redriven', taskRedrives: 4, overriddenBrakes: ['redrive_limit', 'redrive_cooldown'] },
    });
    // A double click on the override is the same redrive, not a fifth.
    expect(
      (await redriveDeadLetter(adminCtx, { deadLetterId: fourth.deadLetterId, reason: 'again', overrideBrakes: true }))
        .changed,
    ).toBe(false);
  });

  it('may not be overridden by a responder: FORBIDDEN, with no audit record and nothing written', async () => {
    const clock = testClock();
    const ctx = { db: database.db, actor: responder, clock: clock.now };
    const task = await makeTask();
    const fourth = await redriveRepeatedly(ctx, clock, task, 3);
    const before = await budgetOf(task.taskId);
    const auditBefore = await auditCountBy(responder);

    await expect(
      redriveDeadLetter(ctx, { deadLetterId: fourth.deadLetterId, reason: 'let me', overrideBrakes: true }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(await auditCountBy(responder)).toBe(auditBefore);
    await expectNothingWritten(task.taskId, fourth, before);
  });

  it('apply when a hold is cleared with resume: refused, and the hold stays open', async () => {
    const task = await makeTask();
    const letter = await deadLetter(task);
    // Clearing a hold judges by the wall clock: the history is set in the past instead.
    await database.db
      .update(taskBudgets)
      .set({ redrivesUsed: 3, lastRedriveAt: new Date(Date.now() - minutes(60)) })
      .where(eq(taskBudgets.taskId, task.taskId));
    const before = await budgetOf(task.taskId);

    await expect(
      clearHold({ db: database.db, actor: responder }, { holdId: letter.holdId, resolution: 'resume', note: 'fixed' }),
    ).rejects.toMatchObject({
      code: 'REDRIVE_REFUSED',
      rules: ['redrive_limit'],
    });
    await expectNothingWritten(task.taskId, letter, before);
    // Giving it up is not braked.
    expect(
      (
        await clearHold(
          { db: database.db, actor: responder },
          { holdId: letter.holdId, resolution: 'discard', note: 'give up' },
        )
      ).changed,
    ).toBe(true);
  });
});

describe('bulk redrive under the brakes', () => {
  it('previews how many items each brake will skip, and the run skips them', async () => {
    const queue = `braked-${randomUUID()}`;
    const tasks = await Promise.all(
      [0, 1, 2, 3, 4, 5].map((index) => makeTask({ queue, firstSeenAgo: index >= 3 ? days(8) : 0 })),
    );
    const letters = [];
    for (const task of tasks) letters.push(await deadLetter(task));
    const set = (index: number, facts: Partial<typeof taskBudgets.$inferInsert>) =>
      database.db.update(taskBudgets).set(facts).where(eq(taskBudgets.taskId, tasks[index]!.taskId));
    // 0: free. 1: at the limit. 2: in its cool-down. 3: too old. 4: too old and at the limit. 5: too old.
    await set(1, { redrivesUsed: 3, lastRedriveAt: new Date(Date.now() - days(1)) });
    await set(2, { redrivesUsed: 1, lastRedriveAt: new Date(Date.now() - minutes(2)) });
    await set(4, { redrivesUsed: 3 });

    const ctx = { db: database.db, actor: responder };
    const preview = await previewBulkRedrive(ctx, { queue });
    expect(preview.total).toBe(6);
    expect(preview.braked).toEqual({ redrive_limit: 2, redrive_cooldown: 1, task_too_old: 3 });
    expect(preview.brakedTotal).toBe(5);
    expect(preview.outcomes.runs_again).toBe(1);
    expect(preview.sample.map((item) => item.brakes)).toEqual([
      [],
      ['redrive_limit'],
      ['redrive_cooldown'],
      ['task_too_old'],
      ['redrive_limit', 'task_too_old'],
      ['task_too_old'],
    ]);

    const { bulkRedrive } = await startBulkRedrive(ctx, {
      requestId: randomUUID(),
      filter: { queue },
      reason: 'CDN back',
      ratePerSecond: 1_000,
    });
    const finished = await runBulkRedrive(ctx, bulkRedrive.id);
    expect(finished).toMatchObject({ status: 'completed', total: 6, processed: 6, redriven: 1, skipped: 5 });
    const pending = await database.db
      .select({ id: deadLetters.id })
      .from(deadLetters)
      .where(
        and(
          inArray(
            deadLetters.id,
            letters.map((letter) => letter.deadLetterId),
          ),
          eq(deadLetters.status, 'pending'),
        ),
      );
    expect(pending.map((row) => row.id).sort((a, b) => a - b)).toEqual(
      letters.slice(1).map((letter) => letter.deadLetterId),
    );
    expect((await budgetOf(tasks[1]!.taskId)).redrivesUsed).toBe(3);
  });
});
