import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { runStep, StepError, type RunStepInput, type RunStepOutcome } from '../../../packages/engine/src/core';
import { connectDatabase } from '../../../packages/engine/src/db/client';
import { attempts, deadLetters, holds, idempotencyKeys, taskBudgets } from '../../../packages/engine/src/db/schema';
import { addKnownOwners } from '../../support/known-owners';
import { useTestDatabase } from '../../support/test-database';
import { aStepInput } from '../../support/step-input';

const database = useTestDatabase();
// The owners its agents name are known (an unknown one would be given the default owner).
beforeAll(() => addKnownOwners(database.db, ['team:growth']));
const ctx = () => ({ db: database.db });
const noWait = { baseDelayMs: 1, maxDelayMs: 1 };

const aStep = (overrides: Partial<RunStepInput> = {}): RunStepInput =>
  aStepInput({ content: { lead: 42 }, retryAllowance: 3, ...overrides });

async function countRows(table: typeof deadLetters | typeof holds, taskOrItem: { taskId?: string; itemId?: string }) {
  if (table === deadLetters) {
    const [row] = await database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(deadLetters)
      .where(eq(deadLetters.taskId, taskOrItem.taskId!));
    return row?.n ?? 0;
  }
  const [row] = await database.db
    .select({ n: sql<number>`count(*)::int` })
    .from(holds)
    .where(eq(holds.itemId, taskOrItem.itemId!));
  return row?.n ?? 0;
}

describe('runStep', () => {
  it('runs the body once and replays its stored result to a redelivery, never calling the model again', async () => {
    const step = aStep();
    let modelCalls = 0;
    const callModel = async () => {
      modelCalls += 1;
      return { result: { draft: `Hello #${modelCalls}` }, costMicros: 4_000 };
    };
    const first = await runStep(ctx(), step, callModel);
    const redelivered = await runStep(ctx(), step, callModel);

    expect(first).toEqual({
      status: 'completed',
      result: { draft: 'Hello #1' },
      attemptNumber: 1,
      taskStatus: 'active',
    });
    expect(redelivered).toEqual({ status: 'replayed', result: { draft: 'Hello #1' } });
    expect(modelCalls).toBe(1);
    const [recorded] = await database.db.select().from(attempts).where(eq(attempts.taskId, step.taskId));
    expect(recorded).toMatchObject({
      outcome: 'succeeded',
      costMicros: 4_000,
      attemptNumber: 1,
      idempotencyKey: `${step.taskId}/draft_email`,
    });
  });

  it('retries a transient failure as attempt 2 and records both attempts with their cost', async () => {
    const step = aStep();
    const failed = await runStep(
      ctx(),
      step,
      async () => {
        throw new StepError('transient', '503 from provider', { costMicros: 700 });
      },
      noWait,
    );
    expect(failed).toMatchObject({ status: 'retry', attemptNumber: 1, errorClass: 'transient' });

    const retried = await runStep(
      ctx(),
      step,
      async ({ attemptNumber }) => ({ result: attemptNumber, costMicros: 900 }),
      noWait,
    );
    expect(retried).toEqual({ status: 'completed', result: 2, attemptNumber: 2, taskStatus: 'active' });
    const rows = await database.db
      .select()
      .from(attempts)
      .where(eq(attempts.taskId, step.taskId))
      .orderBy(attempts.attemptNumber);
    expect(rows.map((row) => [row.attemptNumber, row.outcome, row.errorClass, row.costMicros])).toEqual([
      [1, 'failed', 'transient', 700],
      [2, 'succeeded', null, 900],
    ]);
    const [budget] = await database.db.select().from(taskBudgets).where(eq(taskBudgets.taskId, step.taskId));
    expect(budget).toMatchObject({ retriesUsed: 1, spendMicros: 1_600 });
  });

  it.each([
    ['permanent', new StepError('permanent', '400 Bad Request: invalid recipient')],
    ['unknown', new TypeError('cannot read properties of undefined')],
  ])('never retries a %s error: dead letter, one hold, DO_NOT_RETRY', async (errorClass, error) => {
    const step = aStep();
    const outcome = await runStep(
      ctx(),
      step,
      async () => {
        throw error;
      },
      noWait,
    );
    expect(outcome).toMatchObject({ status: 'stop', code: 'DO_NOT_RETRY' });
    const [letter] = await database.db.select().from(deadLetters).where(eq(deadLetters.taskId, step.taskId));
    expect(letter).toMatchObject({ reason: 'permanent_error', errorClass, attempts: 1, payload: { lead: 42 } });
    expect(await countRows(holds, { itemId: String(letter!.id) })).toBe(1);
  });

  it('shares one retry allowance across all steps of a task', async () => {
    const taskId = `task-${randomUUID()}`;
    const fail = async () => {
      throw new StepError('timeout', 'took too long');
    };
    const run = (stepName: string) =>
      runStep(ctx(), aStep({ taskId, step: stepName, retryAllowance: 2 }), fail, noWait);
    // Allowance 2 for the whole task: step a's retry takes one, step b's retry the other.
    expect(await run('a')).toMatchObject({ status: 'retry', attemptNumber: 1 });
    expect(await run('a')).toMatchObject({ status: 'retry', attemptNumber: 2 });
    expect(await run('b')).toMatchObject({ status: 'retry', attemptNumber: 1 });
    expect(await run('b')).toMatchObject({ status: 'stop', reason: 'retry_ceiling' });
    let ranAfterExhaustion = false;
    const afterExhaustion = await runStep(ctx(), aStep({ taskId, step: 'c' }), async () => {
      ranAfterExhaustion = true;
      return { result: null };
    });
    expect(afterExhaustion).toMatchObject({ status: 'stop', reason: 'task_dead_lettered' });
    expect(ranAfterExhaustion).toBe(false);

    const [budget] = await database.db.select().from(taskBudgets).where(eq(taskBudgets.taskId, taskId));
    expect(budget).toMatchObject({ retriesUsed: 2, status: 'dead_lettered' });
    expect(await countRows(deadLetters, { taskId })).toBe(1);
  });

  it('gives invalid model output exactly one corrective retry', async () => {
    const step = aStep({ retryAllowance: 5 });
    const badOutput = async () => {
      throw new StepError('invalid_output', 'not JSON');
    };
    expect(await runStep(ctx(), step, badOutput, noWait)).toMatchObject({
      status: 'retry',
      errorClass: 'invalid_output',
    });
    expect(await runStep(ctx(), step, badOutput, noWait)).toMatchObject({ status: 'stop', code: 'DO_NOT_RETRY' });
  });

  it('stops at the spend ceiling: retries count against it', async () => {
    const step = aStep({ spendCeilingMicros: 1_000, retryAllowance: 10 });
    const expensiveFailure = async () => {
      throw new StepError('transient', 'flaky', { costMicros: 1_200 });
    };
    expect(await runStep(ctx(), step, expensiveFailure, noWait)).toMatchObject({
      status: 'stop',
      reason: 'budget_exhausted',
    });
  });

  it('holds an interrupted step whose downstream cannot deduplicate, and never calls it again', async () => {
    const step = aStep({ downstreamIdempotent: false, inProgressTtlMs: 60_000 });
    let publishes = 0;
    // The first worker "crashes" mid-call: its claim stays in progress with no completion.
    const crashing = runStep(ctx(), step, async () => {
      publishes += 1;
      await new Promise(() => {}); // never returns
      return { result: null };
    });
    void crashing;
    // Time passes past the claim's expiry: moved by hand, not slept through.
    await expect
      .poll(
        async () =>
          (
            await database.db
              .select()
              .from(idempotencyKeys)
              .where(eq(idempotencyKeys.key, `${step.taskId}/draft_email`))
          ).length,
      )
      .toBe(1);
    await database.db
      .update(idempotencyKeys)
      .set({ lockedUntil: sql`now() - interval '1 second'` })
      .where(eq(idempotencyKeys.key, `${step.taskId}/draft_email`));

    const redelivered = await runStep(ctx(), step, async () => {
      publishes += 1;
      return { result: 'published again' };
    });
    expect(redelivered).toMatchObject({ status: 'stop', code: 'UNCERTAIN_OUTCOME' });
    expect(publishes).toBe(1);
    const [hold] = await database.db
      .select()
      .from(holds)
      .where(and(eq(holds.itemType, 'key'), eq(holds.itemId, `${step.taskId}/draft_email`)));
    expect(hold).toMatchObject({ reason: 'uncertain_outcome', owner: 'team:growth', status: 'open' });
  });

  it('refuses changed content under the same step with a mismatch hold, never running it', async () => {
    const step = aStep();
    await runStep(ctx(), step, async () => ({ result: 'sent' }));
    let ran = false;
    const outcome = await runStep(ctx(), { ...step, content: { lead: 43 } }, async () => {
      ran = true;
      return { result: 'x' };
    });
    expect(outcome).toMatchObject({ status: 'stop', code: 'KEY_PAYLOAD_MISMATCH' });
    expect(ran).toBe(false);
  });

  it('never exceeds the allowance under a burst of concurrent failures, and exhausts into one dead letter and one hold', async () => {
    const taskId = `task-${randomUUID()}`;
    const pool = connectDatabase(database.url, { maxConnections: 24 });
    try {
      // 24 steps of one task fail at once, twice over; the task allows 5 retries in all.
      const failEveryStep = (round: number) =>
        Promise.all(
          Array.from({ length: 24 }, (_, index) =>
            runStep(
              { db: pool.db },
              aStep({ taskId, step: `step_${index}`, retryAllowance: 5 }),
              async () => {
                throw new StepError('transient', `round ${round} failure`);
              },
              noWait,
            ),
          ),
        );
      await failEveryStep(1);
      const outcomes: RunStepOutcome<unknown>[] = await failEveryStep(2);
      expect(outcomes.filter((outcome) => outcome.status === 'stop').length).toBeGreaterThan(0);
    } finally {
      await pool.close();
    }
    const [budget] = await database.db.select().from(taskBudgets).where(eq(taskBudgets.taskId, taskId));
    expect(budget?.retriesUsed).toBe(5);
    const retryAttempts = await database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(attempts)
      .where(and(eq(attempts.taskId, taskId), sql`${attempts.attemptNumber} > 1`));
    expect(retryAttempts[0]?.n).toBe(5);
    expect(await countRows(deadLetters, { taskId })).toBe(1);
    const [letter] = await database.db.select().from(deadLetters).where(eq(deadLetters.taskId, taskId));
    expect(await countRows(holds, { itemId: String(letter!.id) })).toBe(1);
  });

  it('refuses bad input before touching the database', async () => {
    const step = aStep({ owner: '' });
    await expect(runStep(ctx(), step, async () => ({ result: 1 }))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    const [budget] = await database.db.select().from(taskBudgets).where(eq(taskBudgets.taskId, step.taskId));
    expect(budget).toBeUndefined();
  });
});

describe('runStep input and output checks', () => {
  it('refuses an oversize step payload before anything is written', async () => {
    const step = aStep({ content: { blob: 'x'.repeat(300 * 1024) } });
    await expect(runStep(ctx(), step, async () => ({ result: 1 }))).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { content: [expect.stringContaining('256 KiB')] },
    });
    const [budget] = await database.db.select().from(taskBudgets).where(eq(taskBudgets.taskId, step.taskId));
    expect(budget).toBeUndefined();
  });

  it('treats a negative cost reported by a step as a bug for a person, not as a success', async () => {
    const step = aStep();
    const outcome = await runStep(ctx(), step, async () => ({ result: 'ok', costMicros: -5 }));
    expect(outcome).toMatchObject({ status: 'stop', code: 'DO_NOT_RETRY' });
    const [attempt] = await database.db.select().from(attempts).where(eq(attempts.taskId, step.taskId));
    expect(attempt).toMatchObject({ outcome: 'failed', errorClass: 'unknown', costMicros: 0 });
    expect(attempt?.errorText).toContain('invalid cost -5');
  });
});
