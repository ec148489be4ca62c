import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  beginStep,
  finishStep,
  ForbiddenError,
  type Actor,
  type BeginStepInput,
} from '../../../packages/engine/src/core';
import { attempts, breakerSlices, idempotencyKeys, taskBudgets } from '../../../packages/engine/src/db/schema';
import { addKnownOwners } from '../../support/known-owners';
import { useTestDatabase } from '../../support/test-database';
import { aStepInput, attemptOf } from '../../support/step-input';

/**
 * A succeeded finish settles in one statement with no transaction around it (packages/engine/src/core/steps/finish-writes.ts)
 * when the key is as it expects; otherwise it writes nothing and the finish takes the long way, a transaction
 * under the key's lock. Both must leave the same rows.
 */
const database = useTestDatabase();
const at = new Date('2026-12-03T11:00:00.000Z');
const later = new Date(at.getTime() + 1_500);
beforeAll(() => addKnownOwners(database.db, ['team:ops']));

const aStep = (overrides: Partial<BeginStepInput> = {}): BeginStepInput =>
  aStepInput({
    agent: 'reporter',
    owner: 'team:ops',
    step: 'publish',
    content: { report: 3 },
    downstream: `cms-${randomUUID().slice(0, 6)}`,
    estimatedCostMicros: 2_000,
    ...overrides,
  });

async function begun(input: BeginStepInput, actor?: Actor) {
  const answer = await beginStep({ db: database.db, actor, clock: () => at }, input);
  if (answer.decision !== 'run') throw new Error(`expected run, got ${JSON.stringify(answer)}`);
  return answer;
}

/** What a finish leaves: the attempt, the task's money, the key and its kept answer, the breakers' counts. */
async function rowsOf(input: BeginStepInput, key: string) {
  const [attempt] = await database.db
    .select({
      outcome: attempts.outcome,
      latencyMs: attempts.latencyMs,
      costMicros: attempts.costMicros,
      costSource: attempts.costSource,
    })
    .from(attempts)
    .where(eq(attempts.taskId, input.taskId));
  const [task] = await database.db
    .select({ spent: taskBudgets.spendMicros, reserved: taskBudgets.reservedMicros, status: taskBudgets.status })
    .from(taskBudgets)
    .where(eq(taskBudgets.taskId, input.taskId));
  const [stored] = await database.db
    .select({
      status: idempotencyKeys.status,
      result: idempotencyKeys.result,
      reserved: idempotencyKeys.reservedMicros,
      lockedUntil: idempotencyKeys.lockedUntil,
      answer: idempotencyKeys.finishAnswer,
      writtenBy: sql<string>`xmin::text`,
    })
    .from(idempotencyKeys)
    .where(eq(idempotencyKeys.key, key));
  const slices = await database.db
    .select({ attempts: breakerSlices.attempts, failures: breakerSlices.failures })
    .from(breakerSlices)
    .where(
      sql`${breakerSlices.target} in (${`step:${input.agent}/${input.step}`}, ${`downstream:${input.agent}/${input.downstream}`})`,
    );
  return { attempt, task, stored, slices };
}

describe('a succeeded finish', () => {
  it('leaves in one statement what the long way leaves (a final step takes the long way)', async () => {
    const quick = aStep({ step: 'publish_quick' });
    const long = aStep({ step: 'publish_long', final: true });
    const ctx = { db: database.db, clock: () => later };
    const finish = async (input: BeginStepInput) => {
      const run = await begun(input);
      const answer = await finishStep(ctx, {
        ...attemptOf(run),
        outcome: 'succeeded',
        result: { url: '/r/3' },
        costMicros: 1_700,
      });
      return { answer, rows: await rowsOf(input, run.key), key: run.key };
    };
    const [viaStatement, viaTransaction] = [await finish(quick), await finish(long)];

    expect(viaStatement.answer).toEqual({
      decision: 'completed',
      key: viaStatement.key,
      attemptNumber: 1,
      taskStatus: 'active',
    });
    expect(viaTransaction.answer).toEqual({
      decision: 'completed',
      key: viaTransaction.key,
      attemptNumber: 1,
      taskStatus: 'completed',
    });
    for (const { rows, answer } of [viaStatement, viaTransaction]) {
      expect(rows.attempt).toEqual({
        outcome: 'succeeded',
        latencyMs: 1_500,
        costMicros: 1_700,
        costSource: 'reported',
      });
      expect(rows.task).toMatchObject({ spent: 1_700, reserved: 0 });
      expect(rows.stored).toMatchObject({
        status: 'completed',
        result: { url: '/r/3' },
        reserved: 0,
        lockedUntil: null,
      });
      expect(rows.stored?.answer).toEqual(answer);
      expect(rows.slices).toEqual([
        { attempts: 1, failures: 0 },
        { attempts: 1, failures: 0 },
      ]);
    }
    expect(viaStatement.rows.task?.status).toBe('active');
    expect(viaTransaction.rows.task?.status).toBe('completed');
  });

  it('given again for the same attempt, answers the same and writes nothing', async () => {
    const input = aStep();
    const run = await begun(input);
    const report = { ...attemptOf(run), outcome: 'succeeded' as const, result: 'ok', costMicros: 10 };
    const first = await finishStep({ db: database.db, clock: () => later }, report);
    const before = await rowsOf(input, run.key);
    expect(await finishStep({ db: database.db, clock: () => later }, report)).toEqual(first);
    expect(await rowsOf(input, run.key)).toEqual(before);
  });

  it("by a token limited to other agents, writes nothing and is refused as the task's stored agent says", async () => {
    const input = aStep({ agent: 'payroll' });
    const run = await begun(input);
    const limited: Actor = { type: 'agent', id: 'token:9:support', scopes: ['ingest'], allowedAgents: ['support'] };
    await expect(
      finishStep(
        { db: database.db, actor: limited, clock: () => later },
        { key: run.key, fencingToken: run.fencingToken, outcome: 'succeeded', result: 'forged', costMicros: 0 },
      ),
    ).rejects.toBeInstanceOf(ForbiddenError);
    const rows = await rowsOf(input, run.key);
    expect(rows.stored).toMatchObject({ status: 'in_progress', result: null, answer: null });
    expect(rows.attempt?.outcome).toBe('running');
    expect(rows.slices).toEqual([]);
  });
});
