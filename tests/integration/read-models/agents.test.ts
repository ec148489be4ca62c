import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deadLetterTask, recordAttempt, saveStepOwner } from '../../../packages/engine/src/core';
import { getAgentRows } from '../../../lib/queries/agents-page';
import { getStepStats } from '../../../lib/queries/step-stats';
import { admin, anAgent } from '../../support/actors';
import { aFailedAttempt, anAttempt } from '../../support/attempt-factory';
import { aDeadLetterInput } from '../../support/dead-letter-input';
import { addKnownOwners } from '../../support/known-owners';
import { useTestDatabase } from '../../support/test-database';

/**
 * What an agent costs: its steps' figures summed exactly, first-try success from its executions (never an average
 * of its steps' rates), against the window before, with its owner and what of its work waits.
 */
const database = useTestDatabase();
const worker = anAgent('agents-test');
const now = new Date('2026-11-20T12:00:00Z');
const minutesAgo = (minutes: number) => new Date(now.getTime() - minutes * 60_000);

async function record(
  agent: string,
  step: string,
  taskId: string,
  attemptNumber: number,
  failed: boolean,
  cost: number,
  at: Date,
) {
  const timing = { startedAt: at, finishedAt: new Date(at.getTime() + 1_000) };
  const fields = { agent, step, taskId, attemptNumber, costMicros: cost, ...timing };
  await recordAttempt({ db: database.db, actor: worker }, failed ? aFailedAttempt(fields) : anAttempt(fields));
}

describe('an agent row', () => {
  it('sums its steps exactly, counts first-try success by execution, and compares with the window before', async () => {
    const agent = `costly-${randomUUID().slice(0, 8)}`;
    // draft: one execution that needed a retry (fail 300, then 500), one that succeeded at once (400).
    await record(agent, 'draft', 't1', 1, true, 300, minutesAgo(30));
    await record(agent, 'draft', 't1', 2, false, 500, minutesAgo(29));
    await record(agent, 'draft', 't2', 1, false, 400, minutesAgo(28));
    // send: one execution, first try (100).
    await record(agent, 'send', 't3', 1, false, 100, minutesAgo(27));
    // The hour before: one draft execution, first try (200).
    await record(agent, 'draft', 't0', 1, false, 200, minutesAgo(90));

    const range = { from: minutesAgo(60), to: now };
    const [row] = await getAgentRows(database.db, { ...range, agent }, now);
    const steps = await getStepStats(database.db, { ...range, agent });
    const sum = (figure: (step: (typeof steps)[number]) => number) =>
      steps.reduce((total, step) => total + figure(step), 0);
    expect(row).toMatchObject({
      agent,
      steps: 2,
      attempts: 4,
      retries: 1,
      retryRate: 0.25,
      failures: 1,
      totalSpendMicros: 1_300,
      failedSpendMicros: 300,
      // Three executions, two of them right the first time: not the mean of 50 % and 100 %.
      firstTrySuccess: 2 / 3,
      previous: { attempts: 1, totalSpendMicros: 200, retries: 0, firstTrySuccess: 1 },
    });
    // The same as the API's per-step figures, summed.
    expect(row!.attempts).toBe(sum((step) => step.attempts));
    expect(row!.totalSpendMicros).toBe(sum((step) => step.totalSpendMicros));
    expect(row!.retrySpendMicros).toBe(sum((step) => step.retrySpendMicros));
    expect(row!.retrySpendMicros).toBe(300);
  });

  it('names its owner and counts what waits for a person: dead letters and their holds', async () => {
    const agent = `waiting-${randomUUID().slice(0, 8)}`;
    await addKnownOwners(database.db, ['team:payments']);
    await record(agent, 'charge', 'w1', 1, true, 100, minutesAgo(10));
    await deadLetterTask(database.db, worker, aDeadLetterInput({ agent, step: 'charge', queue: agent }));
    await saveStepOwner(
      { db: database.db, actor: admin },
      { agent, step: '*', owner: 'team:payments', reason: 'ours' },
    );
    const [row] = await getAgentRows(database.db, { from: minutesAgo(60), to: now, agent }, now);
    expect(row?.owner).toMatchObject({ owner: 'team:payments', source: 'agent' });
    expect(row?.waiting).toEqual({ openHolds: 1, deadLetters: 1, pauses: 0, openBreakers: 0 });
  });

  it('lists only agents with attempts in the window, most spend first', async () => {
    const cheap = `cheap-${randomUUID().slice(0, 8)}`;
    const dear = `dear-${randomUUID().slice(0, 8)}`;
    await record(cheap, 'a', 'c1', 1, false, 10, minutesAgo(5));
    await record(dear, 'a', 'd1', 1, false, 10_000, minutesAgo(5));
    const rows = await getAgentRows(database.db, { from: minutesAgo(15), to: now }, now);
    const order = rows.map((row) => row.agent).filter((agent) => agent === cheap || agent === dear);
    expect(order).toEqual([dear, cheap]);
  });
});
