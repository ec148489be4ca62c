import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { ensureTaskBudget, openHold, recordAttempt } from '../../../packages/engine/src/core';
import { getOverview } from '../../../lib/queries/overview';
import { stepExists } from '../../../packages/engine/src/core/kernel/known-step';
import { rollUpAttempts } from '../../../packages/engine/src/rollups/roll-up';
import { useTestDatabase } from '../../support/test-database';
import { anAgent } from '../../support/actors';

const database = useTestDatabase();
const now = new Date('2026-11-30T12:00:00Z');
const agent = anAgent('fleet');

/**
 * One attempt, a task of its own. A retry (attemptNumber > 1) has no attempt 1 beside it, so it fails: a failed
 * retry's retry spend is its own cost, where a succeeded retry with no first attempt would have none (one try
 * would have cost what it cost).
 */
async function attempt(step: string, hoursAgo: number, attemptNumber: number, costMicros: number, at = now) {
  const startedAt = new Date(at.getTime() - hoursAgo * 3_600_000);
  await recordAttempt(
    { db: database.db, clock: () => at },
    {
      taskId: `${step}-${hoursAgo}-${attemptNumber}`,
      agent: 'fleet',
      step,
      attemptNumber,
      ...(attemptNumber > 1
        ? { outcome: 'failed' as const, errorClass: 'transient' as const, errorText: '503 from downstream' }
        : { outcome: 'succeeded' as const }),
      costMicros,
      startedAt,
      finishedAt: new Date(startedAt.getTime() + 10),
    },
  );
}

describe('getOverview', () => {
  it('compares the window with the one before it, and names the steps whose retries rose', async () => {
    // Previous 24 h: draft 2 attempts, 0 retries. Current 24 h: draft 4 attempts, 2 retries; send 1 attempt.
    // The two retries failed: each adds its own 300 to retry spend, 600 of the window's 1,000 spend.
    await attempt('draft', 30, 1, 100);
    await attempt('draft', 40, 1, 100);
    await attempt('draft', 2, 1, 100);
    await attempt('draft', 3, 1, 100);
    await attempt('draft', 4, 2, 300);
    await attempt('draft', 5, 2, 300);
    await attempt('send', 1, 1, 200);
    await ensureTaskBudget(database.db, { taskId: 'stuck', agent: 'fleet', owner: 'team:ops' }); // a hold parks an item that exists
    await openHold(
      { db: database.db, actor: agent },
      { itemType: 'task', itemId: 'stuck', reason: 'frozen', detail: 'idle for days', owner: 'team:ops' },
    );

    const overview = await getOverview(database.db, '24h', now);
    expect(overview.headline.attempts).toEqual({ now: 5, before: 2 });
    expect(overview.headline.retryRate).toEqual({ now: 2 / 5, before: 0 });
    expect(overview.headline.retrySpendMicros).toEqual({ now: 600, before: 0 });
    expect(overview.headline.retryShareOfSpend).toEqual({ now: 600 / 1_000, before: 0 });
    expect(overview.headline.openHolds.now).toBe(1);
    expect(overview.headline.frozenHolds.now).toBe(1);

    // Frozen has one meaning (DOMAIN 14): a hold of any reason left open past the threshold counts too.
    await ensureTaskBudget(database.db, { taskId: 'waiting', agent: 'fleet', owner: 'team:ops' });
    const waiting = await openHold(
      { db: database.db, actor: agent },
      { itemType: 'task', itemId: 'waiting', reason: 'uncertain_outcome', detail: 'left open', owner: 'team:ops' },
    );
    await database.db.execute(
      sql`update holds set opened_at = ${new Date(now.getTime() - 4.5 * 86_400_000).toISOString()}::timestamptz where id = ${waiting.hold.id}`,
    );
    const later = await getOverview(database.db, '24h', now, { frozenAfterDays: 3 });
    expect(later.headline.frozenHolds.now).toBe(2);
    expect(later.headline.frozenHolds.before).toBe(1); // open 3.5 days when the window began: past 3 days too
    expect((await getOverview(database.db, '24h', now, { frozenAfterDays: 5 })).headline.frozenHolds.now).toBe(1);
    expect(overview.topSteps).toEqual(['fleet/draft']);
    expect(overview.movers.map((mover) => mover.step)).toEqual(['fleet/draft']);
    expect(overview.movers[0]).toMatchObject({ agent: 'fleet', stepName: 'draft', newInWindow: false });
    expect(overview.previousWindowHadAttempts).toBe(true);
    expect(overview.unit).toBe('15min'); // a day is charted in quarter hours
    const shares = overview.shareOverTime.map((point) => point.share);
    expect(shares.filter((value) => value === 1)).toHaveLength(2); // the two quarter hours holding only retries
  });

  it('charts the five steps with the most retry spend (ties by name), and every step in the totals', async () => {
    // Away from the other tests' attempts. Retry spend: a 700, b 600, c 500, d and e 400 each, f 300, g none
    // (each step's retry failed, so its retry spend is the retry's own cost).
    const at = new Date('2026-10-15T12:30:00Z');
    const retrySpend = { a: 700, b: 600, c: 500, e: 400, d: 400, f: 300, g: 0 };
    for (const [name, spend] of Object.entries(retrySpend)) {
      await attempt(`chart-${name}`, 2, 1, 100, at);
      if (spend > 0) await attempt(`chart-${name}`, 2, 2, spend, at);
    }
    await rollUpAttempts(database.db, { now: at, retentionFloor: new Date(at.getTime() - 30 * 86_400_000) });

    const overview = await getOverview(database.db, '24h', at);
    expect(overview).toEqual(await getOverview(database.db, '24h', at, { rawOnly: true }));
    expect(overview.topSteps).toEqual(['a', 'b', 'c', 'd', 'e'].map((name) => `fleet/chart-${name}`));
    const bucket = '2026-10-15T10:30:00Z'; // the quarter hour of attempts made two hours before 12:30
    expect(overview.retrySpendByStep.find((row) => row.bucket === bucket)).toEqual({
      bucket,
      'fleet/chart-a': 700,
      'fleet/chart-b': 600,
      'fleet/chart-c': 500,
      'fleet/chart-d': 400,
      'fleet/chart-e': 400,
    });
    // f's and g's spend still counts in the share, which every step's spend makes up.
    expect(overview.shareOverTime.find((row) => row.bucket === bucket)?.share).toBe(2_900 / 3_600);
  });

  it('tells an empty previous window from a measured 0, and marks steps new to the window', async () => {
    // Ten days on, nothing happened in the previous 24 h: only a new step, retried, in the current one.
    const later = new Date(now.getTime() + 10 * 86_400_000);
    await attempt('fresh', 2, 1, 100, later);
    await attempt('fresh', 1, 2, 400, later);

    const overview = await getOverview(database.db, '24h', later);
    expect(overview.previousWindowHadAttempts).toBe(false);
    expect(overview.headline.attempts).toEqual({ now: 2, before: 0 });
    expect(overview.movers).toEqual([
      expect.objectContaining({ step: 'fleet/fresh', agent: 'fleet', stepName: 'fresh', newInWindow: true }),
    ]);
  });
});

describe('stepExists', () => {
  it('knows a step by its attempts or a pool named for it, and no other', async () => {
    await attempt('known', 1, 1, 100);
    expect(await stepExists(database.db, { agent: 'fleet', step: 'known' })).toBe(true);
    expect(await stepExists(database.db, { agent: 'fleet', step: 'nothing' })).toBe(false);
    expect(await stepExists(database.db, { agent: 'nope', step: 'known' })).toBe(false);

    await database.db.execute(sql`insert into retry_pools (agent, step, budget_percent, min_retries_per_second, window_seconds, updated_by)
      values ('pooled', 'only-a-pool', 10, 0, 60, 'test'), ('pooled', '*', 10, 0, 60, 'test')`);
    expect(await stepExists(database.db, { agent: 'pooled', step: 'only-a-pool' })).toBe(true);
    // A pool for all of an agent's steps names none of them.
    expect(await stepExists(database.db, { agent: 'pooled', step: 'anything' })).toBe(false);
  });
});
