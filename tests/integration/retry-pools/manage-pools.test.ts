import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { deleteRetryPool, saveRetryPool, type Actor, type CoreContext } from '../../../packages/engine/src/core';
import { readPoolLevel, readPoolLevels } from '../../../packages/engine/src/core/retry-pools/pool-level';
import { auditLog, retryPools, retryPoolUsage } from '../../../packages/engine/src/db/schema';
import { getStepPoolCoverage, listRetryPools } from '../../../lib/queries/retry-pools';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();

type Person = Extract<Actor, { type: 'person' }>;
const admin: Person = { type: 'person', id: 'ada@example.com', role: 'admin', teams: [] };
const responder: Person = { type: 'person', id: 'rex@example.com', role: 'responder', teams: [] };
const viewer: Person = { type: 'person', id: 'viv@example.com', role: 'viewer', teams: [] };

const as = (actor: Actor): CoreContext => ({ db: database.db, actor });

async function auditOf(target: string) {
  return database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.targetType, 'retry_pool'), eq(auditLog.targetId, target)))
    .orderBy(auditLog.id);
}

async function poolOf(agent: string, step: string) {
  const [pool] = await database.db
    .select()
    .from(retryPools)
    .where(and(eq(retryPools.agent, agent), eq(retryPools.step, step)));
  return pool;
}

describe('managing retry pools', () => {
  it('creates, changes and deletes a pool, each with an audit record naming the reason, before and after', async () => {
    const created = await saveRetryPool(as(admin), {
      agent: 'mailer',
      step: 'send_email',
      budgetPercent: 20,
      minRetriesPerSecond: 0.5,
      windowSeconds: 60,
      reason: 'outage last week',
    });
    expect(created).toMatchObject({
      changed: true,
      created: true,
      pool: { agent: 'mailer', step: 'send_email', budgetPercent: 20, updatedBy: 'person:ada@example.com' },
    });

    const changed = await saveRetryPool(as(admin), {
      agent: 'mailer',
      step: 'send_email',
      budgetPercent: 10,
      minRetriesPerSecond: 0.5,
      windowSeconds: 120,
      reason: 'still too many',
    });
    expect(changed).toMatchObject({
      changed: true,
      created: false,
      pool: { id: created.pool.id, budgetPercent: 10, windowSeconds: 120 },
    });

    expect(await deleteRetryPool(as(admin), { poolId: created.pool.id, reason: 'the downstream is replaced' })).toEqual(
      { changed: true },
    );
    expect(await poolOf('mailer', 'send_email')).toBeUndefined();

    const records = await auditOf('mailer/send_email');
    expect(records.map((record) => [record.action, record.actorId, record.reason])).toEqual([
      ['retry_pool.save', 'ada@example.com', 'outage last week'],
      ['retry_pool.save', 'ada@example.com', 'still too many'],
      ['retry_pool.delete', 'ada@example.com', 'the downstream is replaced'],
    ]);
    const settings = { id: created.pool.id, agent: 'mailer', step: 'send_email', minRetriesPerSecond: 0.5 };
    expect(records[0]).toMatchObject({ before: null, after: { ...settings, budgetPercent: 20, windowSeconds: 60 } });
    expect(records[1]).toMatchObject({
      before: { ...settings, budgetPercent: 20, windowSeconds: 60 },
      after: { ...settings, budgetPercent: 10, windowSeconds: 120 },
    });
    expect(records[2]).toMatchObject({ before: { ...settings, budgetPercent: 10, windowSeconds: 120 }, after: null });
  });

  it('answers changed: false for a save with the same values and a second delete, writing nothing', async () => {
    const first = await saveRetryPool(as(admin), {
      agent: 'publisher',
      budgetPercent: 15,
      minRetriesPerSecond: 1,
      windowSeconds: 30,
      reason: 'first',
    });
    expect(first.pool.step).toBe('*'); // no step: every step of the agent
    const again = await saveRetryPool(as(admin), {
      agent: 'publisher',
      step: '*',
      budgetPercent: 15,
      minRetriesPerSecond: 1,
      windowSeconds: 30,
      reason: 'a double click',
    });
    expect(again).toEqual({ changed: false, created: false, pool: first.pool });
    expect(await auditOf('publisher/*')).toHaveLength(1);

    expect(await deleteRetryPool(as(admin), { poolId: first.pool.id, reason: 'gone' })).toEqual({ changed: true });
    expect(await deleteRetryPool(as(admin), { poolId: first.pool.id, reason: 'gone' })).toEqual({ changed: false });
    expect((await auditOf('publisher/*')).map((record) => record.action)).toEqual([
      'retry_pool.save',
      'retry_pool.delete',
    ]);
  });

  it('creates a pool once when the same save arrives twice at the same moment', async () => {
    const input = {
      agent: 'racer',
      step: 'go',
      budgetPercent: 5,
      minRetriesPerSecond: 0,
      windowSeconds: 10,
      reason: 'two tabs',
    };
    const results = await Promise.all([saveRetryPool(as(admin), input), saveRetryPool(as(admin), input)]);
    expect(results.map((result) => result.changed).sort()).toEqual([false, true]);
    expect(await auditOf('racer/go')).toHaveLength(1);
  });

  it('lets neither a viewer nor a responder save or delete a pool, and writes no audit record for them', async () => {
    const { pool } = await saveRetryPool(as(admin), {
      agent: 'guarded',
      step: '*',
      budgetPercent: 10,
      minRetriesPerSecond: 0,
      windowSeconds: 60,
      reason: 'set up',
    });
    for (const person of [viewer, responder]) {
      await expect(
        saveRetryPool(as(person), {
          agent: 'guarded',
          step: '*',
          budgetPercent: 900,
          minRetriesPerSecond: 0,
          windowSeconds: 60,
          reason: 'let me retry',
        }),
      ).rejects.toMatchObject({
        code: 'FORBIDDEN',
        message: expect.stringContaining('this needs the admin role'),
      });
      await expect(
        saveRetryPool(as(person), {
          agent: 'guarded-new',
          budgetPercent: 10,
          minRetriesPerSecond: 0,
          windowSeconds: 60,
          reason: 'mine',
        }),
      ).rejects.toMatchObject({ code: 'FORBIDDEN' });
      await expect(deleteRetryPool(as(person), { poolId: pool.id, reason: 'in my way' })).rejects.toMatchObject({
        code: 'FORBIDDEN',
      });
      const [row] = await database.db
        .select({ n: sql<number>`count(*)::int` })
        .from(auditLog)
        .where(eq(auditLog.actorId, person.id));
      expect(row?.n).toBe(0);
    }
    expect(await poolOf('guarded', '*')).toMatchObject({ budgetPercent: 10 });
    expect(await poolOf('guarded-new', '*')).toBeUndefined();
  });

  it('names every bad field of a save and of a delete', async () => {
    const refusal = saveRetryPool(as(admin), {
      agent: 'bad agent!',
      step: 'two words',
      budgetPercent: 1_001,
      minRetriesPerSecond: -1,
      windowSeconds: 5,
      reason: '  ',
    });
    await expect(refusal).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    const fieldErrors = await refusal.catch((error: { fieldErrors: Record<string, string[]> }) => error.fieldErrors);
    expect(Object.keys(fieldErrors).sort()).toEqual([
      'agent',
      'budgetPercent',
      'minRetriesPerSecond',
      'reason',
      'step',
      'windowSeconds',
    ]);
    expect(fieldErrors).toMatchObject({
      agent: ['may contain only letters, digits and _ . : -'],
      budgetPercent: ['must be at most 1000'],
      minRetriesPerSecond: ['must be at least 0'],
      windowSeconds: ['must be at least 10'],
      reason: ['say why the pool is changed'],
    });

    await expect(
      saveRetryPool(as(admin), {
        agent: 'a',
        step: '',
        budgetPercent: Number.NaN,
        minRetriesPerSecond: 0,
        windowSeconds: 10.5,
        reason: 'x',
      }),
    ).rejects.toMatchObject({
      fieldErrors: {
        step: [expect.stringContaining('use * for every step')],
        budgetPercent: ['must be a number'],
        windowSeconds: ['must be whole seconds'],
      },
    });
    await expect(deleteRetryPool(as(admin), { poolId: 0, reason: '' })).rejects.toMatchObject({
      fieldErrors: { poolId: ['must be a pool id'], reason: ['say why the pool is changed'] },
    });
    expect(await poolOf('a', '')).toBeUndefined();
  });
});

describe('the retry pools read model', () => {
  // A pool's window is whole 5-second slices back from the slice `now` falls in: 60 s from 11:59:05.
  const now = new Date('2026-03-02T12:00:02Z');
  const at = (iso: string) => new Date(`2026-03-${iso}Z`);

  it("reads each pool's level and its refusals in the window and in the last 24 hours from the usage slices", async () => {
    await saveRetryPool(as(admin), {
      agent: 'reader-a',
      step: '*',
      budgetPercent: 20,
      minRetriesPerSecond: 0,
      windowSeconds: 60,
      reason: 'agent-wide',
    });
    await saveRetryPool(as(admin), {
      agent: 'reader-a',
      step: 'fetch',
      budgetPercent: 10,
      minRetriesPerSecond: 0.05,
      windowSeconds: 60,
      reason: 'the flaky one',
    });
    await database.db.insert(retryPoolUsage).values([
      { agent: 'reader-a', step: 'fetch', sliceStart: at('02T11:59:50'), firstAttempts: 40, retries: 2, refusals: 1 },
      { agent: 'reader-a', step: 'fetch', sliceStart: at('02T11:59:30'), firstAttempts: 60, retries: 3, refusals: 2 },
      { agent: 'reader-a', step: 'send', sliceStart: at('02T11:59:55'), firstAttempts: 100, retries: 5, refusals: 4 },
      // Outside the windows, inside the last 24 hours.
      { agent: 'reader-a', step: 'fetch', sliceStart: at('02T11:58:00'), firstAttempts: 500, retries: 50, refusals: 7 },
      { agent: 'reader-a', step: 'send', sliceStart: at('02T11:59:00'), firstAttempts: 9, retries: 9, refusals: 3 },
      // Older than 24 hours, and another agent's steps: counted nowhere.
      { agent: 'reader-a', step: 'fetch', sliceStart: at('01T11:00:00'), firstAttempts: 1, retries: 1, refusals: 100 },
      { agent: 'reader-b', step: 'fetch', sliceStart: at('02T11:59:50'), firstAttempts: 10, retries: 10, refusals: 9 },
    ]);

    const pools = (await listRetryPools(database.db, now)).filter((pool) => pool.agent === 'reader-a');
    expect(pools.map((pool) => pool.step)).toEqual(['*', 'fetch']);
    // 200 first attempts x 20 % = 40 allowed, 10 taken.
    expect(pools[0]).toMatchObject({
      level: { firstAttempts: 200, retries: 10, allowed: 40, left: 30 },
      refusalsInWindow: 7,
      refusals24h: 17,
    });
    // 100 first attempts x 10 % + 0.05/s x 60 s = 13 allowed, 5 taken.
    expect(pools[1]).toMatchObject({
      level: { firstAttempts: 100, retries: 5, allowed: 13, left: 8 },
      refusalsInWindow: 3,
      refusals24h: 10,
    });
    expect(pools[0]?.updatedBy).toBe('person:ada@example.com');

    const steps = [
      { agent: 'reader-a', step: 'fetch' },
      { agent: 'reader-a', step: 'send' },
      { agent: 'reader-a', step: 'quiet' },
      { agent: 'reader-b', step: 'fetch' },
    ];
    const coverage = await getStepPoolCoverage(
      database.db,
      steps,
      { from: new Date(now.getTime() - 3_600_000), to: now },
      now,
    );
    // Both pools cover fetch; the step's own has fewer retries left, so it refuses first.
    expect(coverage.get('reader-a/fetch')).toMatchObject({
      left: 8,
      allowed: 13,
      refusals: 10,
      pools: [expect.objectContaining({ step: '*' }), expect.objectContaining({ step: 'fetch' })],
    });
    expect(coverage.get('reader-a/send')).toMatchObject({
      left: 30,
      allowed: 40,
      refusals: 7,
      pools: [expect.objectContaining({ step: '*' })],
    });
    expect(coverage.get('reader-a/quiet')).toMatchObject({ left: 30, refusals: 0 });
    expect(coverage.has('reader-b/fetch')).toBe(false);

    // A shorter page window counts only its own slices.
    const lastMinute = await getStepPoolCoverage(
      database.db,
      steps,
      { from: at('02T11:59:30'), to: at('02T11:59:55') },
      now,
    );
    expect(lastMinute.get('reader-a/fetch')?.refusals).toBe(3);
    expect(lastMinute.get('reader-a/send')?.refusals).toBe(0);

    // The views read every pool's level in one statement: the same levels as the step engine's read of each.
    const every = await database.db.select().from(retryPools);
    const oneByOne = await Promise.all(every.map((pool) => readPoolLevel(database.db, pool, now)));
    expect(oneByOne.some((level) => level.oldestRetrySliceStart !== undefined)).toBe(true);
    expect(await readPoolLevels(database.db, every, now)).toEqual(oneByOne);
  });

  it('lists no pools and covers no step when none is configured for them', async () => {
    const coverage = await getStepPoolCoverage(
      database.db,
      [{ agent: 'nobody', step: 'x' }],
      { from: new Date(0), to: now },
      now,
    );
    expect(coverage.size).toBe(0);
  });
});
