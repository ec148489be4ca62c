import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { recordAttempt, simulateRetryPolicy, type CoreContext } from '../../../packages/engine/src/core';
import { rollUpAttempts } from '../../../packages/engine/src/rollups/roll-up';
import { useTestDatabase } from '../../support/test-database';
import { aPerson } from '../../support/actors';

const database = useTestDatabase();
const viewer = aPerson('viewer', 'viv@example.com');
const NOW = new Date('2026-12-02T12:00:00.000Z');
const ctx = (): CoreContext => ({ db: database.db, actor: viewer, clock: () => NOW });
const at = (minutes: number) => new Date(NOW.getTime() - 60 * 60_000 + minutes * 60_000);
/** The rollup pass, which keeps the executions' shapes the simulator reads, run as the scheduler runs it. */
const rollUp = (now = NOW) =>
  rollUpAttempts(database.db, { now, retentionFloor: new Date(now.getTime() - 30 * 86_400_000) });

type Try = ['ok' | 'transient' | 'rate_limited' | 'permanent', number];

/** One task's attempts of the step, a minute apart, each lasting 10 s, with these outcomes and costs. */
async function execution(agent: string, tries: Try[], startMinute: number) {
  const taskId = `task-${randomUUID()}`;
  for (const [index, [outcome, costMicros]] of tries.entries()) {
    const startedAt = at(startMinute + index);
    await recordAttempt(
      { db: database.db },
      {
        taskId,
        agent,
        step: 'send_email',
        attemptNumber: index + 1,
        startedAt,
        finishedAt: new Date(startedAt.getTime() + 10_000),
        outcome: outcome === 'ok' ? 'succeeded' : 'failed',
        ...(outcome === 'ok' ? {} : { errorClass: outcome, errorText: `${outcome} failure` }),
        costMicros,
      },
    );
  }
}

describe('the retry-policy simulator', () => {
  it('before the first rollup pass has filled the shapes, says so instead of answering zeros', async () => {
    await expect(
      simulateRetryPolicy(
        ctx(),
        { agent: 'a', step: 's', from: at(0), to: NOW, maxAttempts: 2 },
        { rawRetentionDays: 30 },
      ),
    ).rejects.toMatchObject({ code: 'STATE_CONFLICT', message: expect.stringContaining('not yet filled') });
  });

  it('replays the raw log exactly under another policy: a hand-computed fixture', async () => {
    const agent = `sim-${randomUUID().slice(0, 8)}`;
    // T1 succeeded at its 3rd attempt, T2 at its 2nd after a rate limit, T3 failed four times, T4 at once.
    await execution(
      agent,
      [
        ['transient', 100],
        ['transient', 100],
        ['ok', 100],
      ],
      0,
    );
    await execution(
      agent,
      [
        ['rate_limited', 50],
        ['ok', 50],
      ],
      5,
    );
    await execution(
      agent,
      [
        ['transient', 10],
        ['transient', 10],
        ['transient', 10],
        ['transient', 10],
      ],
      10,
    );
    await execution(agent, [['ok', 200]], 20);
    // A permanent failure is not retried under any policy: it stops nothing more.
    await execution(agent, [['permanent', 5]], 25);
    await rollUp();

    const simulation = await simulateRetryPolicy(
      ctx(),
      { agent, step: 'send_email', from: at(0), to: NOW, maxAttempts: 2, retriedClasses: ['transient'] },
      { rawRetentionDays: 30 },
    );
    // Under "at most 2 attempts, retry transient only" (retry spend: spent beyond one try, the succeeded attempt's
    // cost, else the first's; the saving is the execution's as it ran less its own cut at the stop):
    // T1 stops at attempt 2 (its 3rd, a success, is lost) and ends 60 s sooner: retry spend 300 - 100 as it ran,
    // 200 - 100 cut, so 100 saved;
    // T2 stops at attempt 1 (rate limits are not retried; its 2nd, a success, is lost), 60 s sooner: 100 - 50
    // as it ran, none cut (one try), 50 saved;
    // T3 stops at attempt 2: attempts 3 and 4 are not made, 120 s sooner: 40 - 10 as it ran, 20 - 10 cut, 20
    // saved; T4 and T5 are unchanged.
    expect(simulation).toEqual({
      window: { from: at(0), to: NOW },
      executions: 5,
      stoppedEarlier: 3,
      attemptsSaved: 4,
      retrySpendSavedMicros: 170,
      successesLost: 2,
      timeSavedMs: 240_000,
      byErrorClass: [
        {
          errorClass: 'transient',
          stoppedEarlier: 2,
          attemptsSaved: 3,
          retrySpendSavedMicros: 120,
          successesLost: 1,
          timeSavedMs: 180_000,
        },
        {
          errorClass: 'rate_limited',
          stoppedEarlier: 1,
          attemptsSaved: 1,
          retrySpendSavedMicros: 50,
          successesLost: 1,
          timeSavedMs: 60_000,
        },
      ],
    });

    // The policy in force (4 attempts, every class) changes nothing.
    const same = await simulateRetryPolicy(
      ctx(),
      { agent, step: 'send_email', from: at(0), to: NOW, maxAttempts: 4 },
      { rawRetentionDays: 30 },
    );
    expect(same).toMatchObject({
      executions: 5,
      stoppedEarlier: 0,
      attemptsSaved: 0,
      successesLost: 0,
      byErrorClass: [],
    });
  });

  it('agrees with a replay of the raw log for random executions, late retries included, counted in their first hour', async () => {
    const agent = `sim-${randomUUID().slice(0, 8)}`;
    const classes = ['transient', 'timeout', 'rate_limited', 'permanent'] as const;
    let seed = 20261203;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    type Recorded = { number: number; ended: 'ok' | (typeof classes)[number]; cost: number; finishedAt: number };
    const executions: { taskId: string; begunAt: number; tries: Recorded[] }[] = [];
    const record = async (taskId: string, attempt: Recorded) => {
      await recordAttempt(
        { db: database.db },
        {
          taskId,
          agent,
          step: 'send_email',
          attemptNumber: attempt.number,
          startedAt: new Date(attempt.finishedAt - 2_000),
          finishedAt: new Date(attempt.finishedAt),
          outcome: attempt.ended === 'ok' ? 'succeeded' : 'failed',
          ...(attempt.ended === 'ok' ? {} : { errorClass: attempt.ended, errorText: `${attempt.ended} failure` }),
          costMicros: attempt.cost,
        },
      );
    };
    // 60 executions begun over the three hours before NOW, 1 to 5 attempts each, a minute or so apart.
    for (let index = 0; index < 60; index += 1) {
      const begunAt = NOW.getTime() - 3 * 3_600_000 + Math.floor(random() * (3 * 3_600_000 - 20 * 60_000));
      const count = 1 + Math.floor(random() * 5);
      let finishedAt = begunAt + 2_000;
      const tries = Array.from({ length: count }, (_, position): Recorded => {
        const last = position === count - 1;
        if (position > 0) finishedAt += 30_000 + Math.floor(random() * 60_000);
        return {
          number: position + 1,
          ended: last && random() < 0.7 ? 'ok' : classes[Math.floor(random() * classes.length)]!,
          cost: 1 + Math.floor(random() * 1_000),
          finishedAt,
        };
      });
      executions.push({ taskId: `task-${index}-${randomUUID()}`, begunAt, tries });
    }
    // The first half of each execution is recorded before a pass, the rest after it (late retries, some crossing
    // into another hour), and a second pass runs: each execution must end up counted once, in its first hour.
    for (const { taskId, tries } of executions) {
      for (const attempt of tries.slice(0, Math.ceil(tries.length / 2))) await record(taskId, attempt);
    }
    await rollUp();
    for (const { taskId, tries } of executions) {
      for (const attempt of tries.slice(Math.ceil(tries.length / 2))) await record(taskId, attempt);
    }
    await rollUp();

    const from = new Date(NOW.getTime() - 2 * 3_600_000);
    const policy = { maxAttempts: 3, retriedClasses: ['transient', 'timeout'] };
    const simulation = await simulateRetryPolicy(
      ctx(),
      { agent, step: 'send_email', from, to: NOW, ...policy },
      { rawRetentionDays: 30 },
    );

    // The same rule, replayed over what was recorded. Retry spend is what an execution spent beyond one try,
    // which costs what its succeeded attempt cost, else what its first cost.
    const beyondOneTry = (ran: Recorded[]) => {
      const spent = ran.reduce((sum, { cost }) => sum + cost, 0);
      return spent - (ran.find(({ ended }) => ended === 'ok') ?? ran[0]!).cost;
    };
    const expected = {
      executions: 0,
      stoppedEarlier: 0,
      attemptsSaved: 0,
      retrySpendSavedMicros: 0,
      successesLost: 0,
      timeSavedMs: 0,
    };
    for (const { begunAt, tries } of executions) {
      if (begunAt < from.getTime()) continue;
      expected.executions += 1;
      const stop = tries.findIndex(
        ({ number, ended }) =>
          ended !== 'ok' && (number >= policy.maxAttempts || !policy.retriedClasses.includes(ended)),
      );
      const spared = stop === -1 ? [] : tries.slice(stop + 1);
      if (spared.length === 0) continue;
      expected.stoppedEarlier += 1;
      expected.attemptsSaved += spared.length;
      // As it ran, against cut at the stop (every attempt up to it failed: only a last attempt succeeds here).
      expected.retrySpendSavedMicros += beyondOneTry(tries) - beyondOneTry(tries.slice(0, stop + 1));
      expected.successesLost += spared.some(({ ended }) => ended === 'ok') ? 1 : 0;
      expected.timeSavedMs += tries.at(-1)!.finishedAt - tries[stop]!.finishedAt;
    }
    expect(expected.stoppedEarlier).toBeGreaterThan(5);
    expect(simulation).toMatchObject({ window: { from, to: NOW }, ...expected });
  });

  it('refuses a window beyond the raw retention, naming it, and bad fields by name', async () => {
    await expect(
      simulateRetryPolicy(
        ctx(),
        { agent: 'a', step: 's', from: new Date(NOW.getTime() - 31 * 86_400_000), to: NOW, maxAttempts: 2 },
        { rawRetentionDays: 30 },
      ),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { from: [expect.stringContaining('within the raw retention of 30 days')] },
    });
    await expect(
      simulateRetryPolicy(
        ctx(),
        { agent: 'a', step: 's', from: NOW, to: at(0), maxAttempts: 2 },
        { rawRetentionDays: 30 },
      ),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', fieldErrors: { to: ['must be after from'] } });
    await expect(
      simulateRetryPolicy(
        ctx(),
        { agent: 'a', step: 's', from: at(0), to: NOW, maxAttempts: 0, retriedClasses: ['unknown'] },
        { rawRetentionDays: 30 },
      ),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: {
        maxAttempts: ['must be at least 1'],
        'retriedClasses.0': [expect.stringContaining('must be among')],
      },
    });
  });
});
