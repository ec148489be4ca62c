import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { beginStep, finishStep, type BeginAnswer, type CoreContext } from '../../../packages/engine/src/core';
import { connectDatabase } from '../../../packages/engine/src/db/client';
import { breakerSettings, retryPools } from '../../../packages/engine/src/db/schema';
import { useTestDatabase } from '../../support/test-database';
import { anAgent } from '../../support/actors';
import { aStepInput } from '../../support/step-input';

const database = useTestDatabase({ maxConnections: 4 });
const agentActor = anAgent('pool-test');

/** The finish of a begun attempt that failed with this class. */
function failed(begun: BeginAnswer, errorClass: 'timeout' | 'rate_limited', errorText: string) {
  if (begun.decision !== 'run') throw new Error(`expected run, got ${begun.decision}`);
  return { key: begun.key, fencingToken: begun.fencingToken, outcome: 'failed' as const, errorClass, errorText };
}

/** Runs `work` over `items` with `width` at once. */
async function inParallel<T, R>(items: T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!);
      }
    }),
  );
  return results;
}

describe('fleet retry pools', () => {
  it('1,000 first attempts then a burst of 500 failures: retries granted are exactly P % plus the floor, the rest wait with RETRY_BUDGET_EXHAUSTED; the pool refills after its window', async () => {
    const agent = `pooled-${randomUUID().slice(0, 8)}`;
    // The step's circuit breaker would open in this storm of transient failures (and turn begins away first):
    // it is kept out of this test of the pools by a volume no window here reaches.
    await database.db.insert(breakerSettings).values({
      windowSeconds: 60,
      failureShare: 0.5,
      minimumVolume: 1_000_000,
      coolDownSeconds: 30,
      probes: 3,
      updatedBy: 'person:admin@example.com',
    });
    // 10 % of first attempts plus 0.1 retries a second over 60 s: 100 + 6 = 106 retries.
    await database.db.insert(retryPools).values({
      agent,
      budgetPercent: 10,
      minRetriesPerSecond: 0.1,
      windowSeconds: 60,
      updatedBy: 'person:admin@example.com',
    });
    const start = Date.now();
    let now = start;
    const pool = connectDatabase(database.url, { maxConnections: 16 });
    const ctx: CoreContext = { db: pool.db, actor: agentActor, clock: () => new Date(now) };
    const step = (index: number) => ({
      taskId: `${agent}-${index}`,
      agent,
      owner: 'team:growth',
      step: 'call_model',
      content: { index },
      estimatedCostMicros: 0,
      retryAllowance: 5,
    });
    try {
      const tasks = Array.from({ length: 1_000 }, (_, index) => index);
      // 1,000 first attempts; the first 500 fail with a transient error and ask for a retry.
      await inParallel(tasks, 8, async (index) => {
        const begun = await beginStep(ctx, step(index));
        if (begun.decision !== 'run') throw new Error(`first attempt ${index}: ${JSON.stringify(begun)}`);
        const outcome =
          index < 500
            ? { outcome: 'failed' as const, errorClass: 'transient' as const, errorText: 'upstream 503' }
            : { outcome: 'succeeded' as const, result: index };
        await finishStep(ctx, { key: begun.key, fencingToken: begun.fencingToken, ...outcome });
      });

      const burst = await Promise.all(tasks.slice(0, 500).map((index) => beginStep(ctx, step(index))));
      const granted = burst.filter((answer) => answer.decision === 'run');
      const refused = burst.filter(
        (answer): answer is Extract<BeginAnswer, { decision: 'wait' }> => answer.decision === 'wait',
      );
      expect(granted).toHaveLength(106);
      expect(refused).toHaveLength(394);
      expect(refused.every((answer) => answer.code === 'RETRY_BUDGET_EXHAUSTED' && answer.retryAfterMs >= 1_000)).toBe(
        true,
      );
      const [usage] = await database.db.execute<{ retries: number; refusals: number }>(
        sql`select sum(retries)::int as retries, sum(refusals)::int as refusals from retry_pool_usage where agent = ${agent}`,
      );
      expect(usage).toEqual({ retries: 106, refusals: 394 });
      // A refused retry changed nothing else: its key is still failed, ready for the next begin.
      const [stillFailed] = await database.db.execute<{ count: number }>(
        sql`select count(*)::int as count from idempotency_keys where key like ${`${agent}-%`} and status = 'failed'`,
      );
      expect(stillFailed?.count).toBe(394);

      // After the window, the floor alone allows 6 retries again (no first attempts since).
      now = start + 61_000;
      const later = await Promise.all(tasks.slice(400, 420).map((index) => beginStep(ctx, step(index))));
      expect(later.filter((answer) => answer.decision === 'run')).toHaveLength(6);
    } finally {
      await pool.close();
    }
  }, 180_000);

  it('a step pool and its agent pool both apply; without any pool only the task allowance limits retries', async () => {
    const agent = `free-${randomUUID().slice(0, 8)}`;
    const ctx: CoreContext = { db: database.db, actor: agentActor };
    // Task n of this agent at one step, free and retried at once.
    const stepOf = (n: number, step: string) =>
      aStepInput({ taskId: `${agent}-${n}`, agent, step, content: 1, estimatedCostMicros: 0 });
    const first = await beginStep(ctx, stepOf(1, 'x'));
    await finishStep(ctx, failed(first, 'timeout', 'slow'));
    expect(await beginStep(ctx, stepOf(1, 'x'))).toMatchObject({ decision: 'run', attemptNumber: 2 });

    await database.db.insert(retryPools).values({
      agent,
      step: 'y',
      budgetPercent: 0,
      minRetriesPerSecond: 0,
      windowSeconds: 60,
      updatedBy: 'person:admin@example.com',
    });
    const y = await beginStep(ctx, stepOf(2, 'y'));
    await finishStep(ctx, failed(y, 'rate_limited', '429'));
    expect(await beginStep(ctx, stepOf(2, 'y'))).toMatchObject({
      decision: 'wait',
      code: 'RETRY_BUDGET_EXHAUSTED',
    });
  });
});
