import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  beginStep,
  claimRedrives,
  finishStep,
  redriveDeadLetter,
  type BeginStepInput,
  type CoreContext,
} from '../../../packages/engine/src/core';
import { attempts, deadLetters, taskBudgets } from '../../../packages/engine/src/db/schema';
import { useTestDatabase } from '../../support/test-database';
import { aStepInput, attemptOf } from '../../support/step-input';
import { aPerson, anAgent } from '../../support/actors';

/** Two documented promises of the step protocol, checked as an agent would meet them. */
const database = useTestDatabase();
const agent = anAgent('promises-test');
const responder = aPerson('responder', 'rae@example.com');
const ctx = (): CoreContext => ({ db: database.db, actor: agent });

const aStep = (overrides: Partial<BeginStepInput> = {}): BeginStepInput =>
  aStepInput({ agent: 'billing', owner: 'team:billing', step: 'a', content: { order: 7 }, ...overrides });

async function budgetOf(taskId: string) {
  const [budget] = await database.db.select().from(taskBudgets).where(eq(taskBudgets.taskId, taskId));
  return budget!;
}

describe('once spend has reached the ceiling nothing more begins', () => {
  it('refuses a begin with a zero estimate at the ceiling, and writes no attempt', async () => {
    const first = aStep({ spendCeilingMicros: 2_000, estimatedCostMicros: 1_000 });
    const a = await beginStep(ctx(), first);
    if (a.decision !== 'run') throw new Error(`expected run, got ${JSON.stringify(a)}`);
    await finishStep(ctx(), { key: a.key, fencingToken: a.fencingToken, outcome: 'succeeded', costMicros: 2_000 });

    const b = await beginStep(ctx(), { ...first, step: 'b', estimatedCostMicros: 0 });
    expect(b).toMatchObject({ decision: 'stop', code: 'DO_NOT_RETRY', reason: 'budget_exhausted' });
    expect(await budgetOf(first.taskId)).toMatchObject({
      spendMicros: 2_000,
      reservedMicros: 0,
      status: 'dead_lettered',
    });
    const stepB = await database.db.select().from(attempts).where(eq(attempts.taskId, first.taskId));
    expect(stepB.map((row) => row.step)).toEqual(['a']);
  });

  it('refuses a zero estimate once running attempts have reserved all that is left', async () => {
    const task = aStep({ spendCeilingMicros: 1_000, estimatedCostMicros: 1_000 });
    const running = await beginStep(ctx(), task);
    if (running.decision !== 'run') throw new Error('expected run');
    const squeezed = await beginStep(ctx(), { ...task, step: 'b', estimatedCostMicros: 0 });
    expect(squeezed).toMatchObject({ decision: 'stop', reason: 'budget_exhausted' });
  });

  it('still lets a zero estimate begin while there is room', async () => {
    const task = aStep({ spendCeilingMicros: 1_000, estimatedCostMicros: 0 });
    expect(await beginStep(ctx(), task)).toMatchObject({ decision: 'run', reservedMicros: 0, spendLeftMicros: 1_000 });
  });
});

describe('a redrive grants a fresh allowance and the failed step runs again', () => {
  it('runs the redriven step with no retry allowance, as the first attempt of the new allowance', async () => {
    const task = aStep({ retryAllowance: 0, step: 'charge', queue: 'billing' });
    const first = await beginStep(ctx(), task);
    if (first.decision !== 'run') throw new Error('expected run');
    const stopped = await finishStep(ctx(), {
      ...attemptOf(first),
      outcome: 'failed',
      errorClass: 'permanent',
      errorText: '400 Bad Request: card declined',
    });
    expect(stopped).toMatchObject({ decision: 'stop', code: 'DO_NOT_RETRY' });
    if (stopped.decision !== 'stop') return;

    await redriveDeadLetter(
      { db: database.db, actor: responder },
      { deadLetterId: stopped.deadLetterId!, reason: 'card replaced' },
    );
    const drained = await claimRedrives(ctx(), { queues: ['billing'] });
    expect(drained.map((redrive) => redrive.deadLetterId)).toContain(stopped.deadLetterId);

    const again = await beginStep(ctx(), task);
    expect(again).toMatchObject({ decision: 'run', attemptNumber: 2, retriesLeft: 0 });
    expect(await budgetOf(task.taskId)).toMatchObject({ status: 'active', retriesUsed: 0 });
    const letters = await database.db.select().from(deadLetters).where(eq(deadLetters.taskId, task.taskId));
    expect(letters.map((letter) => letter.status)).toEqual(['redriven']);

    // A retry after the redriven attempt is a retry of the new allowance: with none left it stops.
    if (again.decision !== 'run') return;
    const retried = await finishStep(ctx(), {
      ...attemptOf(again),
      outcome: 'failed',
      errorClass: 'transient',
      errorText: '503 Service Unavailable',
    });
    expect(retried).toMatchObject({ decision: 'stop', code: 'DO_NOT_RETRY', reason: 'retry_ceiling' });
  });
});
