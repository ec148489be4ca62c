import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { recordAttempt, simulateRetryPolicy, type Actor, type CoreContext } from '../../../lib/core';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();
const viewer: Actor = { type: 'person', id: 'viv@example.com', role: 'viewer', teams: [] };
const NOW = new Date('2026-12-02T12:00:00.000Z');
const ctx = (): CoreContext => ({ db: database.db, actor: viewer, clock: () => NOW });
const at = (minutes: number) => new Date(NOW.getTime() - 60 * 60_000 + minutes * 60_000);

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

    const simulation = await simulateRetryPolicy(
      ctx(),
      { agent, step: 'send_email', from: at(0), to: NOW, maxAttempts: 2, retriedClasses: ['transient'] },
      { rawRetentionDays: 30 },
    );
    // Under "at most 2 attempts, retry transient only":
    // T1 stops at attempt 2 (its 3rd, a success costing 100, is lost) and ends 60 s sooner;
    // T2 stops at attempt 1 (rate limits are not retried; its 2nd, a success costing 50, is lost), 60 s sooner;
    // T3 stops at attempt 2: attempts 3 and 4 (10 + 10) are saved, 120 s sooner; T4 and T5 are unchanged.
    expect(simulation).toEqual({
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
