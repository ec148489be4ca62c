import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  beginStep,
  finishStep,
  finishTask,
  type Actor,
  type BeginStepInput,
  type CoreContext,
} from '../../../packages/engine/src/core';
import { connectDatabase } from '../../../packages/engine/src/db/client';
import { attempts, deadLetters, holds, idempotencyKeys, taskBudgets } from '../../../packages/engine/src/db/schema';
import { addKnownOwners } from '../../support/known-owners';
import { useTestDatabase } from '../../support/test-database';
import { aStepInput, attemptOf } from '../../support/step-input';
import { anAgent } from '../../support/actors';

const database = useTestDatabase({ maxConnections: 12 });
// The owners its agents name are known (an unknown one would be given the default owner).
beforeAll(() => addKnownOwners(database.db, ['team:growth']));
const agent = anAgent('engine-test');
const ctx = (clock?: () => Date): CoreContext => ({ db: database.db, actor: agent, clock });

const aStep = (overrides: Partial<BeginStepInput> = {}): BeginStepInput =>
  aStepInput({ estimatedCostMicros: 1_000, ...overrides });

async function budgetOf(taskId: string) {
  const [budget] = await database.db.select().from(taskBudgets).where(eq(taskBudgets.taskId, taskId));
  return budget!;
}

async function begunRun(input: BeginStepInput, clock?: () => Date) {
  const answer = await beginStep(ctx(clock), input);
  if (answer.decision !== 'run') throw new Error(`expected run, got ${JSON.stringify(answer)}`);
  return answer;
}

describe('total budgets: every attempt is gated, first tries too', () => {
  it('32 concurrent begins on one task never reserve past its ceiling: exactly 10 run, the rest stop with the budget code', async () => {
    const taskId = `fan-out-${randomUUID()}`;
    const pool = connectDatabase(database.url, { maxConnections: 32 });
    try {
      const answers = await Promise.all(
        Array.from({ length: 32 }, (_, index) =>
          beginStep(
            { db: pool.db, actor: agent },
            aStep({ taskId, step: `part_${index}`, spendCeilingMicros: 10_000, estimatedCostMicros: 1_000 }),
          ),
        ),
      );
      const ran = answers.filter((answer) => answer.decision === 'run');
      const stopped = answers.filter((answer) => answer.decision === 'stop');
      expect(ran).toHaveLength(10);
      expect(stopped).toHaveLength(22);
      // The first refused dead-letters the task for its budget; those refused after it find it dead-lettered already.
      const reasons = stopped.map((answer) =>
        answer.decision === 'stop' ? `${answer.code}:${answer.reason}` : answer.decision,
      );
      expect(new Set(reasons)).toContain('DO_NOT_RETRY:budget_exhausted');
      expect(
        reasons.filter(
          (reason) => reason !== 'DO_NOT_RETRY:budget_exhausted' && reason !== 'DO_NOT_RETRY:task_dead_lettered',
        ),
      ).toEqual([]);
      const budget = await budgetOf(taskId);
      expect(budget.reservedMicros).toBe(10_000);
      expect(budget.spendMicros + budget.reservedMicros).toBeLessThanOrEqual(budget.spendCeilingMicros);
      // Exhausted work goes somewhere, once: one dead letter and one hold, however many stopped.
      expect((await database.db.select().from(deadLetters).where(eq(deadLetters.taskId, taskId))).length).toBe(1);

      // Each running attempt costs 200 more than it reserved: actual spend ends above the ceiling by the sum of those overruns.
      for (const answer of ran) {
        if (answer.decision !== 'run') continue;
        await finishStep(
          { db: pool.db, actor: agent },
          { key: answer.key, fencingToken: answer.fencingToken, outcome: 'succeeded', result: null, costMicros: 1_200 },
        );
      }
      const settled = await budgetOf(taskId);
      expect(settled).toMatchObject({ reservedMicros: 0, spendMicros: 12_000 });
    } finally {
      await pool.close();
    }
  });

  it('one attempt at a time, actual spend passes the ceiling by at most one attempt over its estimate', async () => {
    const taskId = `serial-${randomUUID()}`;
    let steps = 0;
    for (;;) {
      const answer = await beginStep(
        ctx(),
        aStep({ taskId, step: `s${steps}`, spendCeilingMicros: 5_000, estimatedCostMicros: 1_000 }),
      );
      if (answer.decision !== 'run') {
        expect(answer).toMatchObject({ decision: 'stop', code: 'DO_NOT_RETRY', reason: 'budget_exhausted' });
        break;
      }
      steps += 1;
      await finishStep(ctx(), { ...attemptOf(answer), outcome: 'succeeded', result: steps, costMicros: 1_700 });
    }
    const budget = await budgetOf(taskId);
    // 1,700 a step against a 1,000 estimate: three steps fit (3,000 reserved at most at once), the third ends at 5,100.
    expect(steps).toBe(3);
    expect(budget.spendMicros).toBe(5_100);
    expect(budget.spendMicros - budget.spendCeilingMicros).toBeLessThanOrEqual(1_700 - 1_000);
  });

  it('refuses a first try past the deadline, with a dead letter and a hold', async () => {
    const start = Date.now();
    const step = aStep({ timeAllowanceMs: 60_000 });
    const first = await begunRun(step, () => new Date(start));
    await finishStep(
      ctx(() => new Date(start)),
      { key: first.key, fencingToken: first.fencingToken, outcome: 'succeeded', result: 1 },
    );
    const late = await beginStep(
      ctx(() => new Date(start + 61_000)),
      { ...step, step: 'send_email' },
    );
    expect(late).toMatchObject({ decision: 'stop', code: 'DO_NOT_RETRY', reason: 'deadline_passed' });
    if (late.decision !== 'stop') return;
    const [hold] = await database.db.select().from(holds).where(eq(holds.id, late.holdId!));
    expect(hold).toMatchObject({ reason: 'budget_exhausted', owner: 'team:growth', status: 'open' });
  });

  it('refuses a first try once the task has spent its ceiling', async () => {
    const step = aStep({ spendCeilingMicros: 3_000, estimatedCostMicros: 0 });
    const first = await begunRun(step);
    await finishStep(ctx(), { ...attemptOf(first), outcome: 'succeeded', result: 'pricey', costMicros: 30_000 });
    const next = await beginStep(ctx(), { ...step, step: 'send_email', estimatedCostMicros: 1 });
    expect(next).toMatchObject({ decision: 'stop', code: 'DO_NOT_RETRY', reason: 'budget_exhausted' });
  });

  it('answers run with the attempt, its token and what is left of the allowance, spend and time', async () => {
    const now = new Date();
    const answer = await begunRun(
      aStep({ retryAllowance: 4, spendCeilingMicros: 10_000, estimatedCostMicros: 2_500, timeAllowanceMs: 3_600_000 }),
      () => now,
    );
    expect(answer).toMatchObject({
      decision: 'run',
      attemptNumber: 1,
      fencingToken: 1,
      reservedMicros: 2_500,
      retriesLeft: 4,
      spendLeftMicros: 7_500,
      msLeft: 3_600_000,
    });
  });
});

describe('finish: bad input, stale and repeated finishes', () => {
  it('a finish for an attempt never begun is NOT_FOUND; a superseded token is STALE_TOKEN; nothing is written', async () => {
    await expect(
      finishStep(ctx(), { key: `nothing-${randomUUID()}/x`, fencingToken: 1, outcome: 'succeeded', result: 1 }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const step = aStep();
    const first = await begunRun(step);
    await finishStep(ctx(), { ...attemptOf(first), outcome: 'failed', errorClass: 'transient', errorText: '503' });
    const second = await begunRun(step);
    expect(second.fencingToken).toBe(first.fencingToken + 1);
    await expect(
      finishStep(ctx(), { key: first.key, fencingToken: first.fencingToken, outcome: 'succeeded', result: 'late' }),
    ).rejects.toMatchObject({ code: 'STALE_TOKEN' });
    await expect(
      finishStep(ctx(), { key: first.key, fencingToken: second.fencingToken + 5, outcome: 'succeeded', result: 'x' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const [key] = await database.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, first.key));
    expect(key).toMatchObject({ status: 'in_progress', fencingToken: second.fencingToken });
  });

  it('a superseded attempt that finishes late gets STALE_TOKEN, yet its end and cost are recorded, once', async () => {
    const step = aStep({ estimatedCostMicros: 2_000 });
    const first = await begunRun(step);
    await database.db.execute(
      sql`update idempotency_keys set locked_until = now() - interval '1 second' where key = ${first.key}`,
    );
    const second = await begunRun(step);
    const late = {
      ...attemptOf(first),
      attemptNumber: 1,
      outcome: 'succeeded' as const,
      result: 'late',
      costMicros: 300,
    };
    await expect(finishStep(ctx(), late)).rejects.toMatchObject({ code: 'STALE_TOKEN' });
    await expect(finishStep(ctx(), late)).rejects.toMatchObject({ code: 'STALE_TOKEN' });
    const rows = await database.db
      .select()
      .from(attempts)
      .where(eq(attempts.idempotencyKey, first.key))
      .orderBy(attempts.attemptNumber);
    expect(rows.map((row) => [row.attemptNumber, row.outcome, row.costMicros])).toEqual([
      [1, 'succeeded', 300],
      [2, 'running', 0],
    ]);
    expect(await budgetOf(step.taskId)).toMatchObject({ spendMicros: 300, reservedMicros: 2_000 });
    const [key] = await database.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, first.key));
    expect(key).toMatchObject({ status: 'in_progress', fencingToken: second.fencingToken, result: null });
  });

  it('refuses a negative cost or estimate, and a failure without a class or text, naming each field', async () => {
    await expect(beginStep(ctx(), aStep({ estimatedCostMicros: -1 }))).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { estimatedCostMicros: expect.any(Array) },
    });
    const answer = await begunRun(aStep());
    await expect(
      finishStep(ctx(), { ...attemptOf(answer), outcome: 'succeeded', result: 1, costMicros: -5 }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { costMicros: expect.any(Array) },
    });
    await expect(
      finishStep(ctx(), { key: answer.key, fencingToken: answer.fencingToken, outcome: 'failed', errorText: ' ' }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { errorClass: expect.any(Array), errorText: expect.any(Array) },
    });
    const [attempt] = await database.db.select().from(attempts).where(eq(attempts.idempotencyKey, answer.key));
    expect(attempt?.outcome).toBe('running');
  });

  it('two concurrent finishes of one attempt take effect once and both get the same answer', async () => {
    const pool = connectDatabase(database.url, { maxConnections: 4 });
    try {
      const step = aStep({ retryAllowance: 3 });
      const answer = await begunRun(step);
      const report = {
        ...attemptOf(answer),
        outcome: 'failed' as const,
        errorClass: 'transient' as const,
        errorText: 'reset by peer',
        costMicros: 400,
      };
      const [a, b] = await Promise.all([
        finishStep({ db: pool.db, actor: agent }, report),
        finishStep({ db: pool.db, actor: agent }, report),
      ]);
      expect(a).toEqual(b);
      expect(a).toMatchObject({ decision: 'retry', attemptNumber: 1 });
      expect(await budgetOf(step.taskId)).toMatchObject({ spendMicros: 400, reservedMicros: 0 });
    } finally {
      await pool.close();
    }
  });
});

describe('the task lifecycle', () => {
  it('a final step that succeeds completes the task: later steps stop with TASK_FINISHED, its steps still replay', async () => {
    const step = aStep({ final: true });
    const answer = await begunRun(step);
    expect(
      await finishStep(ctx(), { ...attemptOf(answer), outcome: 'succeeded', result: { sent: true } }),
    ).toMatchObject({
      decision: 'completed',
      taskStatus: 'completed',
    });
    expect(await budgetOf(step.taskId)).toMatchObject({ status: 'completed', finishedAt: expect.any(Date) });
    expect(await beginStep(ctx(), step)).toEqual({ decision: 'replay', key: answer.key, result: { sent: true } });
    expect(await beginStep(ctx(), { ...step, step: 'another' })).toMatchObject({
      decision: 'stop',
      code: 'TASK_FINISHED',
      reason: 'task_finished',
    });
  });

  it('finishTask ends a task once; again the same way changes nothing; another way is refused', async () => {
    const step = aStep();
    await begunRun(step);
    expect(await finishTask(ctx(), { taskId: step.taskId, outcome: 'discarded' })).toEqual({
      taskId: step.taskId,
      status: 'discarded',
      changed: true,
    });
    expect(await finishTask(ctx(), { taskId: step.taskId, outcome: 'discarded' })).toEqual({
      taskId: step.taskId,
      status: 'discarded',
      changed: false,
    });
    await expect(finishTask(ctx(), { taskId: step.taskId, outcome: 'completed' })).rejects.toMatchObject({
      code: 'STATE_CONFLICT',
    });
    await expect(finishTask(ctx(), { taskId: `missing-${randomUUID()}`, outcome: 'completed' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const viewer: Actor = { type: 'agent', id: 'reader', scopes: ['read'] };
    await expect(
      finishTask({ db: database.db, actor: viewer }, { taskId: step.taskId, outcome: 'discarded' }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('a frozen task stops new steps with TASK_FROZEN and the hold to clear', async () => {
    const step = aStep();
    const answer = await begunRun(step);
    await finishStep(ctx(), { key: answer.key, fencingToken: answer.fencingToken, outcome: 'succeeded', result: 1 });
    await database.db.update(taskBudgets).set({ status: 'frozen' }).where(eq(taskBudgets.taskId, step.taskId));
    const [hold] = await database.db
      .insert(holds)
      .values({
        itemType: 'task',
        itemId: step.taskId,
        reason: 'frozen',
        detail: 'idle',
        owner: 'team:growth',
        openedBy: 'system:sweeper',
      })
      .returning();
    expect(await beginStep(ctx(), { ...step, step: 'next' })).toMatchObject({
      decision: 'stop',
      code: 'TASK_FROZEN',
      holdId: hold!.id,
    });
  });

  it('reservations left by an attempt that died are given back when its key is taken over', async () => {
    const step = aStep({ inProgressTtlMs: 60_000, estimatedCostMicros: 4_000, spendCeilingMicros: 10_000 });
    const dead = await begunRun(step);
    await database.db.execute(
      sql`update idempotency_keys set locked_until = now() - interval '1 second' where key = ${dead.key}`,
    );
    const successor = await begunRun(step);
    expect(successor.attemptNumber).toBe(2);
    expect((await budgetOf(step.taskId)).reservedMicros).toBe(4_000);
  });
});
