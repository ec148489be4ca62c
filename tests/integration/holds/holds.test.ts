import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  clearHold,
  clearHolds,
  ensureTaskBudget,
  openHold,
  reassignHold,
  type OpenHoldInput,
} from '../../../packages/engine/src/core';
import { connectDatabase } from '../../../packages/engine/src/db/client';
import { auditLog, holds } from '../../../packages/engine/src/db/schema';
import { addKnownOwners } from '../../support/known-owners';
import { useTestDatabase } from '../../support/test-database';
import { aPerson, anAgent } from '../../support/actors';

const database = useTestDatabase();
// The owners its agents name are known (an unknown one would be given the default owner).
beforeAll(() => addKnownOwners(database.db, ['team:payments', 'team:growth', 'team:ops']));
const owner = aPerson('viewer', 'owner@example.com', ['payments']);
const agent = anAgent('payments-worker');
const responder = aPerson('responder', 'oncall@example.com');
/** Holds are opened by the agents' side; the owning team's viewer acts on them. */
const ctx = () => ({ db: database.db, actor: owner });
const opener = () => ({ db: database.db, actor: agent });

/** A hold on a task that exists (openHold refuses a hold on nothing). */
async function aHold(overrides: Partial<OpenHoldInput> = {}): Promise<OpenHoldInput> {
  const taskId = `task-${randomUUID()}`;
  await ensureTaskBudget(database.db, { taskId, agent: 'payments', owner: 'team:payments' });
  return {
    itemType: 'task',
    itemId: taskId,
    reason: 'needs_approval',
    detail: 'Refund above $500 needs a person',
    owner: 'team:payments',
    ...overrides,
  };
}

async function auditOf(holdId: number) {
  return database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.targetType, 'hold'), eq(auditLog.targetId, String(holdId))));
}

describe('openHold', () => {
  it('opens one hold per item, however many workers open it at once', async () => {
    const input = await aHold();
    const pool = connectDatabase(database.url, { maxConnections: 16 });
    try {
      const results = await Promise.all(
        Array.from({ length: 16 }, () => openHold({ db: pool.db, actor: agent }, input)),
      );
      expect(results.filter((result) => result.created)).toHaveLength(1);
      expect(new Set(results.map((result) => result.hold.id)).size).toBe(1);
    } finally {
      await pool.close();
    }
    const open = await database.db
      .select()
      .from(holds)
      .where(and(eq(holds.itemId, input.itemId), eq(holds.status, 'open')));
    expect(open).toHaveLength(1);
    expect(await auditOf(open[0]!.id)).toHaveLength(1);
  });

  it.each([
    ['an unknown reason code', { reason: 'because' }],
    ['an empty owner', { owner: '' }],
    ['an owner that is neither a person nor a team', { owner: 'bob' }],
    ['a blank detail', { detail: '   ' }],
  ])('refuses %s and writes nothing', async (_case, overrides) => {
    const input = await aHold(overrides as Partial<OpenHoldInput>);
    await expect(openHold(opener(), input)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    const [count] = await database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(holds)
      .where(eq(holds.itemId, input.itemId));
    expect(count?.n).toBe(0);
  });
});

describe('clearHold and reassignHold', () => {
  it('clears once: a double click returns the same cleared hold and writes one audit record', async () => {
    const { hold } = await openHold(opener(), await aHold());
    const first = await clearHold(ctx(), { holdId: hold.id, resolution: 'resume', note: 'approved by finance' });
    const second = await clearHold(ctx(), { holdId: hold.id, resolution: 'resume', note: 'approved by finance' });

    expect(first).toMatchObject({
      changed: true,
      hold: { status: 'cleared', resolution: 'resume', clearedBy: 'person:owner@example.com' },
    });
    expect(second).toMatchObject({ changed: false, hold: { id: hold.id, status: 'cleared' } });
    const records = await auditOf(hold.id);
    expect(records.map((record) => record.action).sort()).toEqual(['hold.clear.resume', 'hold.open']);
  });

  it('takes effect once when two people clear one hold at the same moment, and both see the same cleared hold', async () => {
    const { hold } = await openHold(opener(), await aHold());
    const [mine, theirs] = await Promise.all([
      clearHold(ctx(), { holdId: hold.id, resolution: 'resume', note: 'approved' }),
      clearHold({ db: database.db, actor: responder }, { holdId: hold.id, resolution: 'resume', note: 'approved too' }),
    ]);
    expect([mine.changed, theirs.changed].sort()).toEqual([false, true]);
    expect(mine.hold).toEqual(theirs.hold);
    const clears = (await auditOf(hold.id)).filter((record) => record.action === 'hold.clear.resume');
    expect(clears).toHaveLength(1);
  });

  it('clears a selection with one note, all or none', async () => {
    const selected = await Promise.all([
      openHold(opener(), await aHold()),
      openHold(opener(), await aHold()),
      openHold(opener(), await aHold()),
    ]);
    // Returned in id order: the order the holds are locked in.
    const ids = selected.map(({ hold }) => hold.id).sort((a, b) => a - b);
    const changes = await clearHolds(ctx(), { holdIds: ids, resolution: 'discard', note: 'customer withdrew' });
    expect(changes.map((change) => [change.hold.id, change.changed, change.hold.resolutionNote])).toEqual(
      ids.map((id) => [id, true, 'customer withdrew']),
    );

    // One hold the viewer may not clear (another team's) refuses the whole selection; nothing changes.
    const mineToo = await openHold(opener(), await aHold());
    const notMine = await openHold(opener(), await aHold({ owner: 'team:growth' }));
    await expect(
      clearHolds(ctx(), { holdIds: [mineToo.hold.id, notMine.hold.id], resolution: 'resume', note: 'go' }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const [stillOpen] = await database.db.select().from(holds).where(eq(holds.id, mineToo.hold.id));
    expect(stillOpen?.status).toBe('open');
    await expect(clearHolds(ctx(), { holdIds: [], resolution: 'resume', note: 'go' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });

  it('refuses to clear a cleared hold the other way', async () => {
    const { hold } = await openHold(opener(), await aHold());
    await clearHold(ctx(), { holdId: hold.id, resolution: 'discard', note: 'duplicate request' });
    await expect(clearHold(ctx(), { holdId: hold.id, resolution: 'resume', note: 'oops' })).rejects.toMatchObject({
      code: 'STATE_CONFLICT',
    });
  });

  it('lets a new hold open for the item once the old one is cleared', async () => {
    const input = await aHold();
    const { hold } = await openHold(opener(), input);
    await clearHold(ctx(), { holdId: hold.id, resolution: 'resume', note: 'ok' });
    const again = await openHold(opener(), input);
    expect(again.created).toBe(true);
    expect(again.hold.id).not.toBe(hold.id);
  });

  it('reassigns with a note, idempotently, and only open holds', async () => {
    const { hold } = await openHold(opener(), await aHold());
    const moved = await reassignHold(ctx(), {
      holdId: hold.id,
      owner: 'person:lead@example.com',
      note: 'lead decides refunds',
    });
    // The repeat comes from a responder: the viewer no longer owns the hold.
    const again = await reassignHold(
      { db: database.db, actor: responder },
      { holdId: hold.id, owner: 'person:lead@example.com', note: 'lead decides refunds' },
    );
    expect(moved).toMatchObject({ changed: true, hold: { owner: 'person:lead@example.com' } });
    expect(again.changed).toBe(false);
    expect((await auditOf(hold.id)).filter((record) => record.action === 'hold.reassign')).toHaveLength(1);

    // No longer the viewer's hold: only a responder may act on it now.
    await expect(clearHold(ctx(), { holdId: hold.id, resolution: 'discard', note: 'withdrawn' })).rejects.toMatchObject(
      { code: 'FORBIDDEN' },
    );
    await clearHold(
      { db: database.db, actor: responder },
      { holdId: hold.id, resolution: 'discard', note: 'withdrawn' },
    );
    await expect(
      reassignHold({ db: database.db, actor: responder }, { holdId: hold.id, owner: 'team:ops', note: 'x' }),
    ).rejects.toMatchObject({
      code: 'STATE_CONFLICT',
    });
  });

  it('requires a note, an existing hold and an actor', async () => {
    const { hold } = await openHold(opener(), await aHold());
    await expect(clearHold(ctx(), { holdId: hold.id, resolution: 'resume', note: ' ' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(clearHold(ctx(), { holdId: 999_999_999, resolution: 'resume', note: 'x' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(clearHold({ db: database.db }, { holdId: hold.id, resolution: 'resume', note: 'x' })).rejects.toThrow(
      /needs ctx.actor/,
    );
    const [current] = await database.db.select().from(holds).where(eq(holds.id, hold.id));
    expect(current?.status).toBe('open');
  });
});
