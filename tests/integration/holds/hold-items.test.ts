import { randomUUID } from 'node:crypto';
import { and, eq, like, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  acquireSlot,
  claimKey,
  clearHold,
  clearHolds,
  deadLetterTask,
  decideHoldClear,
  ensureTaskBudget,
  openHold,
  startRun,
  type Actor,
  type OpenHoldInput,
} from '../../../packages/engine/src/core';
import { auditLog, deadLetters, holds, idempotencyKeys } from '../../../packages/engine/src/db/schema';
import { addKnownOwners } from '../../support/known-owners';
import { useTestDatabase } from '../../support/test-database';
import { aPerson, anAgent } from '../../support/actors';
import { aDeadLetterInput } from '../../support/dead-letter-input';

const database = useTestDatabase();
// The owners its agents name are known (an unknown one would be given the default owner).
beforeAll(() => addKnownOwners(database.db, ['team:payments', 'team:growth']));
const agent = anAgent('payments-worker');
/** Vera: a viewer in team payments, who owns the holds below through her team. */
const viewer = aPerson('viewer', 'vera@example.com', ['payments']);
const responder = aPerson('responder', 'rex@example.com');
const as = (actor: Actor) => ({ db: database.db, actor });

async function holdCountFor(itemId: string): Promise<number> {
  const [row] = await database.db.select({ n: sql<number>`count(*)::int` }).from(holds).where(eq(holds.itemId, itemId));
  return row?.n ?? 0;
}

async function aDeadLetter(): Promise<{ deadLetterId: number; holdId: number }> {
  const { deadLetter, hold } = await deadLetterTask(database.db, agent, aDeadLetterInput());
  return { deadLetterId: deadLetter.id, holdId: hold.id };
}

/** A key claimed for a step whose downstream cannot deduplicate, still within its claim. */
async function aLiveKey(): Promise<string> {
  // Named as stored (raw: prefix): the tests read and move the key by its stored name.
  const key = `raw:key-${randomUUID()}`;
  const claim = await claimKey(
    { db: database.db },
    { key, requestHash: 'h', holder: 'run-1', downstreamIdempotent: false, inProgressTtlMs: 3_600_000 },
  );
  expect(claim.outcome).toBe('acquired');
  return key;
}

async function keyHold(key: string): Promise<number> {
  const { hold } = await openHold(as(agent), {
    itemType: 'key',
    itemId: key,
    reason: 'uncertain_outcome',
    detail: 'check the provider',
    owner: 'team:payments',
  });
  return hold.id;
}

const expireClaim = (key: string) =>
  database.db
    .update(idempotencyKeys)
    .set({ lockedUntil: sql`now() - interval '1 second'` })
    .where(eq(idempotencyKeys.key, key));

describe('opening a hold checks its item exists', () => {
  it.each<[string, Pick<OpenHoldInput, 'itemType' | 'itemId'>, RegExp]>([
    ['a task', { itemType: 'task', itemId: 'task-nobody-began' }, /No task "task-nobody-began"/],
    ['a dead letter', { itemType: 'dead_letter', itemId: '987654321' }, /No dead letter "987654321"/],
    ['a key', { itemType: 'key', itemId: 'key-never-claimed' }, /No idempotency key "key-never-claimed"/],
    ['a slot', { itemType: 'slot', itemId: 'slot-never-taken' }, /No slot lock "slot-never-taken"/],
  ])(
    'refuses a hold on %s that does not exist with NOT_FOUND naming it, and writes nothing',
    async (_case, item, message) => {
      const auditBefore = await database.db.select({ n: sql<number>`count(*)::int` }).from(auditLog);
      const opening = openHold(as(agent), {
        ...item,
        reason: 'manual',
        detail: 'look at this',
        owner: 'team:payments',
      });
      await expect(opening).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringMatching(message) });
      expect(await holdCountFor(item.itemId)).toBe(0);
      expect(await database.db.select({ n: sql<number>`count(*)::int` }).from(auditLog)).toEqual(auditBefore);
    },
  );

  it('opens holds on items that exist: a task, a dead letter, a key and a slot', async () => {
    const taskId = `task-${randomUUID()}`;
    await ensureTaskBudget(database.db, { taskId, agent: 'payments', owner: 'team:payments' });
    const { deadLetterId } = await aDeadLetter();
    const key = await aLiveKey();
    const runKey = `run-${randomUUID()}`;
    await startRun({ db: database.db }, { runKey, taskId, agent: 'payments' });
    const slot = `slot-${randomUUID()}`;
    await acquireSlot({ db: database.db }, { slot, runKey, ttlMs: 60_000 });

    for (const item of [
      { itemType: 'task', itemId: taskId },
      { itemType: 'key', itemId: key },
      { itemType: 'slot', itemId: slot },
    ] as const) {
      const { created } = await openHold(as(agent), {
        ...item,
        reason: 'manual',
        detail: 'look at this',
        owner: 'team:payments',
      });
      expect(created).toBe(true);
    }
    // The dead letter already has its hold (opened with it): the same hold comes back.
    const again = await openHold(as(agent), {
      itemType: 'dead_letter',
      itemId: String(deadLetterId),
      reason: 'manual',
      detail: 'x',
      owner: 'team:payments',
    });
    expect(again.created).toBe(false);
  });
});

describe('resolving a key hold never releases a live claim', () => {
  it.each(['resume', 'discard'] as const)(
    'refuses to %s while the claim has not expired, and writes nothing',
    async (resolution) => {
      const key = await aLiveKey();
      const holdId = await keyHold(key);
      const [before] = await database.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, key));

      await expect(
        clearHold(as(responder), { holdId, resolution, note: 'checked the provider' }),
      ).rejects.toMatchObject({
        code: 'STATE_CONFLICT',
        message: expect.stringMatching(/still claimed until .* neither released nor marked done/),
      });
      const [after] = await database.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, key));
      expect(after).toEqual(before);
      const [hold] = await database.db.select().from(holds).where(eq(holds.id, holdId));
      expect(hold?.status).toBe('open');
      const clears = await database.db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.targetId, String(holdId)), like(auditLog.action, 'hold.clear%')));
      expect(clears).toHaveLength(0);
    },
  );

  it('refuses a bulk clear that includes a live key, all or none', async () => {
    const taskId = `task-${randomUUID()}`;
    await ensureTaskBudget(database.db, { taskId, agent: 'payments', owner: 'team:payments' });
    const { hold: taskHold } = await openHold(as(agent), {
      itemType: 'task',
      itemId: taskId,
      reason: 'manual',
      detail: 'x',
      owner: 'team:payments',
    });
    const liveHold = await keyHold(await aLiveKey());
    await expect(
      clearHolds(as(responder), { holdIds: [taskHold.id, liveHold], resolution: 'resume', note: 'go' }),
    ).rejects.toMatchObject({ code: 'STATE_CONFLICT' });
    const [task] = await database.db.select().from(holds).where(eq(holds.id, taskHold.id));
    expect(task?.status).toBe('open');
  });

  it('releases the key once its claim has expired: the outcome is then really uncertain', async () => {
    const key = await aLiveKey();
    const holdId = await keyHold(key);
    await expireClaim(key);
    const { changed } = await clearHold(as(responder), {
      holdId,
      resolution: 'resume',
      note: 'the charge never reached the provider',
    });
    expect(changed).toBe(true);
    const [row] = await database.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, key));
    expect(row?.status).toBe('failed');
  });
});

describe("a hold's resolution needs the item's own permission", () => {
  it.each(['resume', 'discard'] as const)(
    "refuses a viewer who owns a dead letter's hold to %s it (a redrive or a discard needs a responder)",
    async (resolution) => {
      const { deadLetterId, holdId } = await aDeadLetter();
      await expect(clearHold(as(viewer), { holdId, resolution, note: 'looks fine' })).rejects.toMatchObject({
        code: 'FORBIDDEN',
        message: expect.stringContaining(resolution === 'resume' ? 'dead_letter.redrive' : 'dead_letter.discard'),
      });
      const [letter] = await database.db.select().from(deadLetters).where(eq(deadLetters.id, deadLetterId));
      expect(letter?.status).toBe('pending');
      const [hold] = await database.db.select().from(holds).where(eq(holds.id, holdId));
      expect(hold?.status).toBe('open');
    },
  );

  it.each(['resume', 'discard'] as const)(
    "refuses a viewer who owns a key's hold to %s it, even after the claim expired",
    async (resolution) => {
      const key = await aLiveKey();
      const holdId = await keyHold(key);
      await expireClaim(key);
      await expect(clearHold(as(viewer), { holdId, resolution, note: 'checked' })).rejects.toMatchObject({
        code: 'FORBIDDEN',
        message: expect.stringContaining('key.resolve'),
      });
      const [row] = await database.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, key));
      expect(row?.status).toBe('in_progress');
    },
  );

  it("lets a responder redrive a dead letter through its hold, and a viewer still clear their own task's hold", async () => {
    const { holdId } = await aDeadLetter();
    await expect(
      clearHold(as(responder), { holdId, resolution: 'resume', note: 'fixed the card' }),
    ).resolves.toMatchObject({ changed: true });

    const taskId = `task-${randomUUID()}`;
    await ensureTaskBudget(database.db, { taskId, agent: 'payments', owner: 'team:payments' });
    const { hold } = await openHold(as(agent), {
      itemType: 'task',
      itemId: taskId,
      reason: 'needs_approval',
      detail: 'approve',
      owner: 'team:payments',
    });
    await expect(
      clearHold(as(viewer), { holdId: hold.id, resolution: 'resume', note: 'approved' }),
    ).resolves.toMatchObject({ changed: true });
  });

  it('tells the console the same: a viewer owner may clear a task hold, not a dead letter or key hold', () => {
    const owner = 'team:payments';
    expect(decideHoldClear(viewer, { owner, itemType: 'task' }).allowed).toBe(true);
    expect(decideHoldClear(viewer, { owner, itemType: 'dead_letter' })).toMatchObject({
      allowed: false,
      reason: 'this needs the responder or admin role',
    });
    expect(decideHoldClear(viewer, { owner, itemType: 'key' }, 'discard').allowed).toBe(false);
    expect(decideHoldClear(responder, { owner, itemType: 'key' }).allowed).toBe(true);
    expect(decideHoldClear(viewer, { owner: 'team:growth', itemType: 'task' }).allowed).toBe(false);
  });
});
