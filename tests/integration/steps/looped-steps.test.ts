import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { beginStep, finishStep, type BeginStepInput, type CoreContext } from '../../../packages/engine/src/core';
import { attempts, taskBudgets } from '../../../packages/engine/src/db/schema';
import { getStepStats } from '../../../lib/queries/step-stats';
import { addKnownOwners } from '../../support/known-owners';
import { useTestDatabase } from '../../support/test-database';
import { anAgent } from '../../support/actors';
import { attemptOf } from '../../support/step-input';

/**
 * A step run in a loop (the protocol's `iteration`): each pass is its own
 * operation with its own key and numbers its attempts from 1, and every
 * attempt of every pass is in the log, as the task's spend says.
 */
const database = useTestDatabase();
beforeAll(() => addKnownOwners(database.db, ['team:growth']));
const agent = anAgent('looped-steps');
/** One instant for every call: passes that begin in the same millisecond must not collide. */
const NOW = new Date();
const ctx = (): CoreContext => ({ db: database.db, actor: agent, clock: () => NOW });

async function runPass(taskId: string, iteration: number, outcomes: ('ok' | 'transient')[]) {
  const input: BeginStepInput = {
    taskId,
    agent: 'poller',
    owner: 'team:growth',
    step: 'poll_inbox',
    iteration,
    content: { iteration },
    estimatedCostMicros: 100,
  };
  for (const outcome of outcomes) {
    const begun = await beginStep(ctx(), input);
    if (begun.decision !== 'run') throw new Error(`pass ${iteration}: expected run, got ${JSON.stringify(begun)}`);
    const answer = await finishStep(
      ctx(),
      outcome === 'ok'
        ? { key: begun.key, fencingToken: begun.fencingToken, outcome: 'succeeded', result: iteration, costMicros: 100 }
        : {
            ...attemptOf(begun),
            outcome: 'failed',
            errorClass: 'transient',
            errorText: '503 from the mail server',
            costMicros: 100,
          },
    );
    expect(answer.decision).toBe(outcome === 'ok' ? 'completed' : 'retry');
  }
}

describe('a step run in a loop', () => {
  it('logs every attempt of every pass, each pass numbered from 1, and the log sums to the task’s spend', async () => {
    const taskId = `loop-${randomUUID()}`;
    await runPass(taskId, 0, ['ok']);
    await runPass(taskId, 1, ['transient', 'ok']);
    await runPass(taskId, 2, ['ok']);

    const rows = await database.db
      .select({
        iteration: attempts.iteration,
        attemptNumber: attempts.attemptNumber,
        outcome: attempts.outcome,
        costMicros: attempts.costMicros,
        idempotencyKey: attempts.idempotencyKey,
      })
      .from(attempts)
      .where(eq(attempts.taskId, taskId))
      .orderBy(attempts.iteration, attempts.attemptNumber);
    expect(rows).toEqual([
      {
        iteration: 0,
        attemptNumber: 1,
        outcome: 'succeeded',
        costMicros: 100,
        idempotencyKey: `${taskId}/poll_inbox#0`,
      },
      { iteration: 1, attemptNumber: 1, outcome: 'failed', costMicros: 100, idempotencyKey: `${taskId}/poll_inbox#1` },
      {
        iteration: 1,
        attemptNumber: 2,
        outcome: 'succeeded',
        costMicros: 100,
        idempotencyKey: `${taskId}/poll_inbox#1`,
      },
      {
        iteration: 2,
        attemptNumber: 1,
        outcome: 'succeeded',
        costMicros: 100,
        idempotencyKey: `${taskId}/poll_inbox#2`,
      },
    ]);
    const [budget] = await database.db.select().from(taskBudgets).where(eq(taskBudgets.taskId, taskId));
    expect(budget!.spendMicros).toBe(400);

    // The Steps page counts a later pass's first try as a first try, and the one retry as a retry.
    const stats = await getStepStats(database.db, {
      from: new Date(NOW.getTime() - 60_000),
      to: new Date(NOW.getTime() + 60_000),
      agent: 'poller',
    });
    expect(stats.find((row) => row.step === 'poll_inbox')).toMatchObject({
      attempts: 4,
      retries: 1,
      failures: 1,
      totalSpendMicros: 400,
      retrySpendMicros: 100,
    });
  });

  it('replays a finished pass to a redelivery without a new attempt', async () => {
    const taskId = `loop-replay-${randomUUID()}`;
    await runPass(taskId, 0, ['ok']);
    await runPass(taskId, 1, ['ok']);
    const again = await beginStep(ctx(), {
      taskId,
      agent: 'poller',
      owner: 'team:growth',
      step: 'poll_inbox',
      iteration: 1,
      content: { iteration: 1 },
    });
    expect(again).toMatchObject({ decision: 'replay', result: 1 });
    expect(await database.db.$count(attempts, eq(attempts.taskId, taskId))).toBe(2);
  });
});
