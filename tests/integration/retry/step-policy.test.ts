import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  beginStep,
  finishStep,
  redriveDeadLetter,
  removeStepPolicy,
  saveStepPolicy,
  type BeginStepInput,
  type CoreContext,
} from '../../../packages/engine/src/core';
import { auditLog, taskBudgets } from '../../../packages/engine/src/db/schema';
import { addKnownOwners } from '../../support/known-owners';
import { useTestDatabase } from '../../support/test-database';
import { aStepInput, attemptOf } from '../../support/step-input';
import { admin, aPerson, anAgent } from '../../support/actors';

const database = useTestDatabase();
beforeAll(() => addKnownOwners(database.db, ['team:growth']));

const responder = aPerson('responder', 'rex@example.com');
const agentToken = anAgent('policy-test');
const asAdmin = (): CoreContext => ({ db: database.db, actor: admin });
const asAgent = (): CoreContext => ({ db: database.db, actor: agentToken });

const aBegin = (overrides: Partial<BeginStepInput> = {}): BeginStepInput =>
  aStepInput({ step: 'send_email', content: { lead: 1 }, retryAllowance: 5, ...overrides });

/** Begins the step and fails it with this class; returns the finish's answer. */
async function failOnce(begin: BeginStepInput, errorClass: 'transient' | 'rate_limited' = 'transient') {
  const answer = await beginStep(asAgent(), begin);
  if (answer.decision !== 'run') throw new Error(`expected run, got ${JSON.stringify(answer)}`);
  return finishStep(asAgent(), { ...attemptOf(answer), outcome: 'failed', errorClass, errorText: 'upstream said no' });
}

/** A step with one finished attempt, so it is known. */
async function knownStep() {
  const agent = `agent-${randomUUID().slice(0, 8)}`;
  const begin = aBegin({ agent });
  const answer = await beginStep(asAgent(), begin);
  if (answer.decision !== 'run') throw new Error('expected run');
  await finishStep(asAgent(), { key: answer.key, fencingToken: answer.fencingToken, outcome: 'succeeded' });
  return { agent, step: begin.step };
}

describe('a step retry policy changed live', () => {
  it('maximum attempts changed from 4 to 2 changes the next decision of a running task; the audit has before and after', async () => {
    const names = await knownStep();
    await saveStepPolicy(asAdmin(), { ...names, maxAttempts: 4, reason: 'bound the storm' });
    const begin = aBegin({ agent: names.agent });
    expect(await failOnce(begin)).toMatchObject({ decision: 'retry', attemptNumber: 1 });

    await saveStepPolicy(asAdmin(), { ...names, maxAttempts: 2, reason: 'tighter while the API is down' });
    // The same task's second attempt: under 4 it would retry; under 2 it stops.
    expect(await failOnce(begin)).toMatchObject({
      decision: 'stop',
      code: 'DO_NOT_RETRY',
      reason: 'retry_ceiling',
    });

    const records = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'step_policy.save'), eq(auditLog.targetId, `${names.agent}/${names.step}`)))
      .orderBy(auditLog.id);
    expect(records.map((record) => [record.before, record.after, record.reason])).toEqual([
      [
        { maxAttempts: null, retriedClasses: null, baseDelayMs: null, maxDelayMs: null, retryAllowance: null },
        { maxAttempts: 4, retriedClasses: null, baseDelayMs: null, maxDelayMs: null, retryAllowance: null },
        'bound the storm',
      ],
      [
        { maxAttempts: 4, retriedClasses: null, baseDelayMs: null, maxDelayMs: null, retryAllowance: null },
        { maxAttempts: 2, retriedClasses: null, baseDelayMs: null, maxDelayMs: null, retryAllowance: null },
        'tighter while the API is down',
      ],
    ]);
    // The same override again writes nothing.
    expect((await saveStepPolicy(asAdmin(), { ...names, maxAttempts: 2, reason: 'again' })).changed).toBe(false);
  });

  it("counts maximum attempts since the task was last redriven: a redriven task gets the policy's attempts again", async () => {
    const names = await knownStep();
    await saveStepPolicy(asAdmin(), { ...names, maxAttempts: 2, reason: 'two tries' });
    const begin = aBegin({ agent: names.agent });
    expect((await failOnce(begin)).decision).toBe('retry');
    const stopped = await failOnce(begin);
    expect(stopped).toMatchObject({ decision: 'stop', reason: 'retry_ceiling' });
    if (stopped.decision !== 'stop' || stopped.deadLetterId === undefined) throw new Error('expected a dead letter');
    await redriveDeadLetter(
      { db: database.db, actor: responder },
      { deadLetterId: stopped.deadLetterId, reason: 'fixed upstream' },
    );
    // Attempt 3 of the key, the first since the redrive: retried; attempt 4, the second: stopped again.
    expect(await failOnce(begin)).toMatchObject({ decision: 'retry', attemptNumber: 3 });
    expect(await failOnce(begin)).toMatchObject({
      decision: 'stop',
      reason: 'retry_ceiling',
      detail: expect.stringContaining('this was attempt 2 since the task was redriven'),
    });
  });

  it('retries only the classes it names, with its backoff, and gives new tasks its allowance', async () => {
    const names = await knownStep();
    const runningTask = aBegin({ agent: names.agent });
    expect((await failOnce(runningTask)).decision).toBe('retry');
    await saveStepPolicy(asAdmin(), {
      ...names,
      retriedClasses: ['transient'],
      baseDelayMs: 10,
      maxDelayMs: 10,
      retryAllowance: 1,
      reason: 'provider rate limits us: stop hammering',
    });
    const retried = await failOnce(runningTask, 'transient');
    expect(retried).toMatchObject({ decision: 'retry' });
    if (retried.decision === 'retry') expect(retried.delayMs).toBeLessThanOrEqual(10);
    expect(await failOnce(aBegin({ agent: names.agent }), 'rate_limited')).toMatchObject({
      decision: 'stop',
      reason: 'permanent_error',
    });

    // A task begun now gets the step's allowance, not the 5 its begin states; one begun before keeps its own.
    const newTask = aBegin({ agent: names.agent });
    await beginStep(asAgent(), newTask);
    const [fresh] = await database.db.select().from(taskBudgets).where(eq(taskBudgets.taskId, newTask.taskId));
    const [older] = await database.db.select().from(taskBudgets).where(eq(taskBudgets.taskId, runningTask.taskId));
    expect([fresh?.retryAllowance, older?.retryAllowance]).toEqual([1, 5]);

    expect(await removeStepPolicy(asAdmin(), { ...names, reason: 'provider is back' })).toEqual({ removed: true });
    expect(await removeStepPolicy(asAdmin(), { ...names, reason: 'again' })).toEqual({ removed: false });
  });

  it('refuses others than admins, an unknown step, and bad values by field', async () => {
    const names = await knownStep();
    await expect(
      saveStepPolicy({ db: database.db, actor: responder }, { ...names, maxAttempts: 2, reason: 'x' }),
    ).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(
      saveStepPolicy(asAdmin(), { agent: 'nobody', step: 'nothing', maxAttempts: 2, reason: 'x' }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(
      saveStepPolicy(asAdmin(), {
        ...names,
        maxAttempts: 0,
        retriedClasses: ['permanent'],
        baseDelayMs: 500,
        maxDelayMs: 100,
        retryAllowance: 1_001,
        reason: '',
      }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: {
        maxAttempts: ['must be at least 1'],
        'retriedClasses.0': [expect.stringContaining('must be among transient')],
        retryAllowance: ['must be at most 1,000'],
        reason: ['say why'],
      },
    });
    await expect(
      saveStepPolicy(asAdmin(), { ...names, baseDelayMs: 500, maxDelayMs: 100, reason: 'x' }),
    ).rejects.toMatchObject({
      fieldErrors: { maxDelayMs: ['must be at least the base delay'] },
    });
  });
});
