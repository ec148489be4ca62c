import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureTaskBudget } from '../../../packages/engine/src/core/budgets/task-budget';
import { SWEEPER } from '../../../packages/engine/src/core/kernel/context';
import { escalateStaleLocks } from '../../../packages/engine/src/core/holds/escalate-stale-locks';
import { escalateUncertainKeys } from '../../../packages/engine/src/core/holds/escalate-uncertain-keys';
import { freezeIdleTasks } from '../../../packages/engine/src/core/holds/freeze-idle-tasks';
import { openHold } from '../../../packages/engine/src/core/holds/open-hold';
import { reconcileHolds } from '../../../packages/engine/src/core/holds/reconcile-holds';
import { clearHold } from '../../../packages/engine/src/core/hold-clearing/clear-hold';
import { claimKey } from '../../../packages/engine/src/core/keys/claim-key';
import { completeKey } from '../../../packages/engine/src/core/keys/settle-key';
import { acquireSlot, recordEvidence, releaseSlot } from '../../../packages/engine/src/core/slots/slot-lock';
import { sweepStaleSlots } from '../../../packages/engine/src/core/slots/force-release';
import { startRun } from '../../../packages/engine/src/core/slots/runs';
import { runDueSweeps } from '../../../packages/engine/src/scheduler/sweeps';
import { finishTask } from '../../../packages/engine/src/core/tasks/finish-task';
import { auditLog, holds, idempotencyKeys, slotLocks, type HoldItemType } from '../../../packages/engine/src/db/schema';
import { addKnownOwners } from '../../support/known-owners';
import { useTestDatabase } from '../../support/test-database';
import { anAgent, oncall } from '../../support/actors';

const database = useTestDatabase();
// The owners its agents name are known (an unknown one would be given the default owner).
beforeAll(() =>
  addKnownOwners(database.db, ['person:payments-lead@example.com', 'team:publishing', 'team:night-shift']),
);
const ctx = () => ({ db: database.db });
const MINUTE_MS = 60_000;
const minutesFromNow = (minutes: number) => new Date(Date.now() + minutes * MINUTE_MS);
const agent = anAgent('x');
const taskOwner = 'person:payments-lead@example.com';

async function newTask(): Promise<string> {
  const taskId = `task-${randomUUID()}`;
  await ensureTaskBudget(database.db, { taskId, agent: 'payments', owner: taskOwner });
  return taskId;
}

/** A key whose holder started a side effect that cannot be deduplicated, then died: its claim ran out a moment ago. */
async function uncertainKey(options: { taskId?: string } = {}) {
  // A raw key, named as stored (raw: prefix): the tests move claims by hand, by their stored names.
  const key = `raw:${options.taskId ?? `loose-${randomUUID()}`}/charge_card`;
  const claim = await claimKey(ctx(), {
    key,
    requestHash: 'h-1',
    holder: 'run-1',
    downstreamIdempotent: false,
    inProgressTtlMs: 60_000,
    taskId: options.taskId,
    step: 'charge_card',
  });
  if (claim.outcome !== 'acquired') throw new Error('expected to acquire');
  await database.sql`update idempotency_keys set locked_until = now() - interval '1 second' where key = ${key}`;
  return { key, fencingToken: claim.fencingToken };
}

/** A held lock past its TTL whose run is still "running" and left evidence: the sweeper must keep refusing it. */
async function refusedLock(options: { taskId?: string } = {}) {
  const slot = `publish:site-${randomUUID().slice(0, 8)}:2026-11-30:morning`;
  const runKey = `run-${randomUUID()}`;
  if (options.taskId) await startRun(ctx(), { runKey, taskId: options.taskId, agent: 'publishing' });
  const lock = await acquireSlot(ctx(), { slot, runKey, ttlMs: 60_000 });
  if (lock.outcome !== 'acquired') throw new Error('expected to acquire');
  await recordEvidence(ctx(), { slot, runKey, fencingToken: lock.fencingToken, ref: 'page-42' });
  await database.sql`update slot_locks set expires_at = now() - interval '1 second' where slot = ${slot}`;
  return { slot, runKey };
}

async function holdsOn(itemType: HoldItemType, itemId: string) {
  return database.db
    .select()
    .from(holds)
    .where(and(eq(holds.itemType, itemType), eq(holds.itemId, itemId)))
    .orderBy(holds.id);
}

async function auditOf(holdId: number, action: string) {
  return database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.targetType, 'hold'), eq(auditLog.targetId, String(holdId)), eq(auditLog.action, action)));
}

/** Waits (polling, never a fixed sleep) until `count` sessions of this database are blocked on a row lock. */
async function untilSessionsWaitOnLocks(count: number) {
  for (let poll = 0; poll < 500; poll++) {
    const [waiting] = await database.sql<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`;
    if ((waiting?.n ?? 0) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${count} sessions never waited on a lock`);
}

async function keyEscalatedAt(key: string) {
  const [row] = await database.db
    .select({ escalatedAt: idempotencyKeys.escalatedAt })
    .from(idempotencyKeys)
    .where(eq(idempotencyKeys.key, key));
  return row?.escalatedAt;
}

describe('escalateUncertainKeys', () => {
  it("holds an uncertain key with no redelivery for its task's owner, once, and not before 15 minutes", async () => {
    const taskId = await newTask();
    const { key } = await uncertainKey({ taskId });

    expect(await escalateUncertainKeys(ctx(), { now: minutesFromNow(10) })).not.toContainEqual(
      expect.objectContaining({ itemId: key }),
    );
    expect(await holdsOn('key', key)).toEqual([]);

    const first = await escalateUncertainKeys(ctx(), { now: minutesFromNow(16) });
    const second = await escalateUncertainKeys(ctx(), { now: minutesFromNow(21) });

    expect(first).toContainEqual({ itemId: key, holdId: expect.any(Number), holdCreated: true, owner: taskOwner });
    expect(second).not.toContainEqual(expect.objectContaining({ itemId: key }));
    const [hold, ...others] = await holdsOn('key', key);
    expect(others).toEqual([]);
    expect(hold).toMatchObject({
      reason: 'uncertain_outcome',
      owner: taskOwner,
      status: 'open',
      openedBy: 'system:sweeper',
    });
    expect(hold?.detail).toContain(`Step charge_card of task ${taskId}`);
    expect(await auditOf(hold!.id, 'hold.open')).toHaveLength(1);
    expect(await keyEscalatedAt(key)).toBeInstanceOf(Date);
  });

  it('gives a key outside any task to the default owner, and only marks a key a redelivery already held', async () => {
    const loose = await uncertainKey();
    const redelivered = await uncertainKey({ taskId: await newTask() });
    // What a redelivery does when it finds the key uncertain (runStep / beginStep).
    const { hold: existing } = await openHold(
      { db: database.db, actor: agent },
      {
        itemType: 'key',
        itemId: redelivered.key,
        reason: 'uncertain_outcome',
        owner: taskOwner,
        detail: 'found uncertain by a redelivery',
      },
    );

    const escalated = await escalateUncertainKeys(ctx(), {
      now: minutesFromNow(16),
      defaultOwner: 'team:payments-oncall',
    });

    expect(escalated).toContainEqual(
      expect.objectContaining({ itemId: loose.key, holdCreated: true, owner: 'team:payments-oncall' }),
    );
    expect(escalated).toContainEqual({
      itemId: redelivered.key,
      holdId: existing.id,
      holdCreated: false,
      owner: taskOwner,
    });
    expect(await holdsOn('key', redelivered.key)).toHaveLength(1);
    expect(await keyEscalatedAt(redelivered.key)).toBeInstanceOf(Date);
  });

  it('leaves alone keys whose downstream deduplicates, that completed, or whose claim is still live', async () => {
    const idempotent = `raw:task-${randomUUID()}/send_email`;
    await claimKey(ctx(), { key: idempotent, requestHash: 'h', inProgressTtlMs: 60_000 });
    await database.sql`update idempotency_keys set locked_until = now() - interval '1 second' where key = ${idempotent}`;
    const completed = await uncertainKey();
    await completeKey(ctx(), { key: completed.key, fencingToken: completed.fencingToken, result: { charged: true } });
    const live = `raw:task-${randomUUID()}/charge_card`;
    await claimKey(ctx(), { key: live, requestHash: 'h', downstreamIdempotent: false, inProgressTtlMs: 3_600_000 });

    const escalated = await escalateUncertainKeys(ctx(), { now: minutesFromNow(16) });

    for (const key of [idempotent, completed.key, live]) {
      expect(escalated).not.toContainEqual(expect.objectContaining({ itemId: key }));
      expect(await holdsOn('key', key)).toEqual([]);
    }
  });

  it('escalates again once a person released the key and its next claim ran out too', async () => {
    const { key } = await uncertainKey({ taskId: await newTask() });
    const [first] = (await escalateUncertainKeys(ctx(), { now: minutesFromNow(16) })).filter(
      (item) => item.itemId === key,
    );
    await clearHold(
      { db: database.db, actor: oncall },
      { holdId: first!.holdId, resolution: 'resume', note: 'no charge at the bank' },
    );

    expect(
      await claimKey(ctx(), { key, requestHash: 'h-1', downstreamIdempotent: false, inProgressTtlMs: 60_000 }),
    ).toMatchObject({ outcome: 'acquired' });
    expect(await keyEscalatedAt(key)).toBeNull();
    await database.sql`update idempotency_keys set locked_until = now() - interval '1 second' where key = ${key}`;

    const [second] = (await escalateUncertainKeys(ctx(), { now: minutesFromNow(16) })).filter(
      (item) => item.itemId === key,
    );
    expect(second).toMatchObject({ holdCreated: true });
    expect(second?.holdId).not.toBe(first?.holdId);
  });
});

describe('escalateStaleLocks', () => {
  /** One pass of the release sweep and then the escalation, at a moment `minutes` from now. */
  async function sweepPass(minutes: number) {
    const now = minutesFromNow(minutes);
    await sweepStaleSlots(ctx(), { now });
    return escalateStaleLocks(ctx(), { now });
  }

  it("holds a lock the sweeper refused for 30 minutes, once, for its run's owner, naming the failing guards", async () => {
    const taskId = await newTask();
    const { slot, runKey } = await refusedLock({ taskId });

    await sweepPass(0);
    expect(await sweepPass(10)).not.toContainEqual(expect.objectContaining({ itemId: slot }));
    expect(await holdsOn('slot', slot)).toEqual([]);

    const first = await sweepPass(31);
    const second = await sweepPass(36);

    expect(first).toContainEqual({ itemId: slot, holdId: expect.any(Number), holdCreated: true, owner: taskOwner });
    expect(second).not.toContainEqual(expect.objectContaining({ itemId: slot }));
    const [hold, ...others] = await holdsOn('slot', slot);
    expect(others).toEqual([]);
    expect(hold).toMatchObject({ reason: 'stale_lock', owner: taskOwner, status: 'open', openedBy: 'system:sweeper' });
    expect(hold?.detail).toContain(`held by run ${runKey}`);
    expect(hold?.detail).toContain('holder_run_finished');
    expect(hold?.detail).toContain('no_evidence');
    const [lock] = await database.db.select().from(slotLocks).where(eq(slotLocks.slot, slot));
    expect(lock?.escalatedAt).toBeInstanceOf(Date);
  });

  it('closes its stale_lock hold as resolved once the holder lets go of the lock, and not before', async () => {
    const { slot, runKey } = await refusedLock({ taskId: await newTask() });
    await sweepPass(0);
    await sweepPass(31);
    expect(await reconcileHolds(ctx())).not.toContainEqual(expect.objectContaining({ itemId: slot }));
    await releaseSlot(ctx(), { slot, runKey });
    expect(await reconcileHolds(ctx())).toContainEqual(expect.objectContaining({ itemType: 'slot', itemId: slot }));
    expect(await reconcileHolds(ctx())).not.toContainEqual(expect.objectContaining({ itemId: slot }));
    const [hold] = await holdsOn('slot', slot);
    expect(hold).toMatchObject({ status: 'cleared', resolution: 'resolved', clearedBy: 'system:sweeper' });
    expect(hold?.resolutionNote).toContain('The lock was released');
  });

  it('gives a lock whose run Holdfast does not know to the default owner', async () => {
    const { slot } = await refusedLock();
    await sweepStaleSlots(ctx(), { now: minutesFromNow(0) });
    const escalated = await escalateStaleLocks(ctx(), { now: minutesFromNow(31), defaultOwner: 'team:publishing' });
    expect(escalated).toContainEqual(expect.objectContaining({ itemId: slot, owner: 'team:publishing' }));
  });

  it('forgets the refusals of a lock a new holder took meanwhile', async () => {
    const { slot } = await refusedLock({ taskId: await newTask() });
    await sweepStaleSlots(ctx(), { now: minutesFromNow(0) });
    expect(await acquireSlot(ctx(), { slot, runKey: `run-${randomUUID()}`, ttlMs: 60_000 })).toMatchObject({
      outcome: 'acquired',
    });

    expect(await escalateStaleLocks(ctx(), { now: minutesFromNow(31) })).not.toContainEqual(
      expect.objectContaining({ itemId: slot }),
    );
    expect(await holdsOn('slot', slot)).toEqual([]);
  });
});

describe('reconcileHolds', () => {
  it('closes a cleared uncertain hold and a frozen hold on a finished task once, each with one audit record, and leaves the others open', async () => {
    const lateKey = await uncertainKey({ taskId: await newTask() });
    const stillUncertain = await uncertainKey({ taskId: await newTask() });
    await escalateUncertainKeys(ctx(), { now: minutesFromNow(16) });
    await completeKey(ctx(), { key: lateKey.key, fencingToken: lateKey.fencingToken, result: { charged: true } }); // the holder reports back late

    const [finished, stillFrozen] = [await newTask(), await newTask()];
    await database.sql`update task_budgets set updated_at = now() - interval '4 days' where task_id in (${finished}, ${stillFrozen})`;
    await freezeIdleTasks(ctx(), { idleDays: 3 });
    await finishTask({ db: database.db, actor: agent }, { taskId: finished, outcome: 'completed' });
    // A finished task's other holds are a person's call: only `frozen` clears by itself.
    const otherTask = await newTask();
    await finishTask({ db: database.db, actor: agent }, { taskId: otherTask, outcome: 'completed' });
    const { hold: mismatch } = await openHold(
      { db: database.db, actor: SWEEPER },
      {
        itemType: 'task',
        itemId: otherTask,
        reason: 'payload_mismatch',
        owner: taskOwner,
        detail: 'different content',
      },
    );

    // Three sweepers at once, all of which saw the key's hold open: a person's transaction keeps it
    // locked until each is waiting to close it, so all three really do try. Then once more.
    const [keyHoldBefore] = await holdsOn('key', lateKey.key);
    const { racing } = await database.sql.begin(async (person) => {
      await person`select id from holds where id = ${keyHoldBefore!.id} for update`;
      const passes = Promise.all([reconcileHolds(ctx()), reconcileHolds(ctx()), reconcileHolds(ctx())]);
      await untilSessionsWaitOnLocks(3);
      return { racing: passes }; // wrapped: the transaction must end without waiting for the passes it blocks
    });
    const passes = await racing;
    const again = await reconcileHolds(ctx());

    const resolvedIds = passes.flat().map((item) => item.holdId);
    const [keyHold] = await holdsOn('key', lateKey.key);
    const [taskHold] = await holdsOn('task', finished);
    expect(resolvedIds.filter((id) => id === keyHold!.id)).toHaveLength(1);
    expect(resolvedIds.filter((id) => id === taskHold!.id)).toHaveLength(1);
    expect(again).toEqual([]);
    for (const hold of [keyHold, taskHold]) {
      expect(hold).toMatchObject({
        status: 'cleared',
        resolution: 'resolved',
        clearedBy: 'system:sweeper',
        clearedAt: expect.any(Date),
      });
      expect(await auditOf(hold!.id, 'hold.resolve')).toMatchObject([
        { actorType: 'system', actorId: 'sweeper', reason: hold!.resolutionNote },
      ]);
    }
    expect(keyHold?.resolutionNote).toMatch(/^The key completed on its own at .+ UTC/);
    expect(taskHold?.resolutionNote).toMatch(/^The task was finished as completed at .+ UTC/);

    expect(await holdsOn('key', stillUncertain.key)).toMatchObject([{ status: 'open' }]);
    expect(await holdsOn('task', stillFrozen)).toMatchObject([{ status: 'open', reason: 'frozen' }]);
    expect(await holdsOn('task', mismatch.itemId)).toMatchObject([{ status: 'open' }]);
  });

  it("keeps `resolved` the sweeper's word: a person clears with resume or discard only, and not a resolved hold", async () => {
    const taskId = await newTask();
    await database.sql`update task_budgets set updated_at = now() - interval '4 days' where task_id = ${taskId}`;
    await freezeIdleTasks(ctx(), { idleDays: 3 });
    const [hold] = await holdsOn('task', taskId);
    const clear = (resolution: string) =>
      clearHold(
        { db: database.db, actor: oncall },
        { holdId: hold!.id, resolution: resolution as 'resume', note: 'done by hand' },
      );

    await expect(clear('resolved')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await finishTask({ db: database.db, actor: agent }, { taskId, outcome: 'discarded' });
    await reconcileHolds(ctx());
    await expect(clear('resume')).rejects.toMatchObject({ code: 'STATE_CONFLICT' });
  });
});

describe('runDueSweeps', () => {
  it('runs the escalations and the reconciliation with the settings and clock it is given', async () => {
    const { key, fencingToken } = await uncertainKey();
    const now = minutesFromNow(6);
    const settings = { uncertainEscalateAfterMs: 5 * MINUTE_MS, defaultOwner: 'team:night-shift' };

    const reports = await runDueSweeps({ db: database.db, clock: () => now }, settings);

    expect(
      reports
        .filter((report) => report.job.startsWith('escalate_') || report.job === 'reconcile_holds')
        .map((report) => report.ran),
    ).toEqual([true, true, true]);
    const [hold] = await holdsOn('key', key);
    expect(hold).toMatchObject({ status: 'open', owner: 'team:night-shift' });

    await completeKey(ctx(), { key, fencingToken, result: null });
    await runDueSweeps({ db: database.db, clock: () => new Date(now.getTime() + MINUTE_MS) }, settings);
    expect(await holdsOn('key', key)).toMatchObject([{ status: 'cleared', resolution: 'resolved' }]);
  });
});
