import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  beginStep,
  finishStep,
  redriveDeadLetter,
  runStep,
  StepError,
  type BeginStepInput,
  type CoreContext,
} from '../../../packages/engine/src/core';
import { DEFAULT_CORE_POLICY } from '../../../packages/engine/src/core/kernel/context';
import {
  auditLog,
  deadLetters,
  holds,
  idempotencyKeys,
  redrives,
  taskBudgets,
} from '../../../packages/engine/src/db/schema';
import { addKnownOwners } from '../../support/known-owners';
import { useTestDatabase } from '../../support/test-database';
import { oncall } from '../../support/actors';
import { attemptOf } from '../../support/step-input';

const database = useTestDatabase();
beforeAll(() => addKnownOwners(database.db, ['team:web']));
const agentCtx = (): CoreContext => ({ db: database.db });
const oncallCtx = (policy?: CoreContext['policy']): CoreContext => ({ db: database.db, actor: oncall, policy });

/** A task whose `draft` step completed and whose `send` step then failed for good, on the given recipient. */
async function taskDeadOnSend(taskId = `mail-${randomUUID()}`) {
  const base = { taskId, agent: 'mailer', owner: 'team:web', retryAllowance: 2 };
  const drafted = await runStep(agentCtx(), { ...base, step: 'draft', content: { about: 'renewal' } }, async () => ({
    result: 'draft v1',
  }));
  expect(drafted).toMatchObject({ status: 'completed', result: 'draft v1' });
  const sent = await runStep(
    agentCtx(),
    { ...base, step: 'send', content: { recipient: 'nobody@invalid', draft: 'draft v1' } },
    async () => {
      throw new StepError('permanent', '400 Bad Request: the recipient address is invalid');
    },
  );
  if (!('deadLetterId' in sent) || !sent.deadLetterId)
    throw new Error(`expected a dead letter: ${JSON.stringify(sent)}`);
  return { base, deadLetterId: sent.deadLetterId };
}

async function budgetOf(taskId: string) {
  const [budget] = await database.db.select().from(taskBudgets).where(eq(taskBudgets.taskId, taskId));
  return budget;
}

describe('an edited redrive', () => {
  it('runs the new payload as a new task under new keys, and leaves the old task and its stored results alone', async () => {
    const { base, deadLetterId } = await taskDeadOnSend();
    const oldKeys = await database.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.taskId, base.taskId));
    const oldBudget = await budgetOf(base.taskId);
    const edited = { draft: 'draft v1', recipient: 'ada@example.com' };

    const { redrive, changed } = await redriveDeadLetter(oncallCtx(), {
      deadLetterId,
      reason: 'recipient corrected',
      payload: edited,
    });
    expect(changed).toBe(true);
    const [stored] = await database.db.select().from(deadLetters).where(eq(deadLetters.id, deadLetterId));
    const newTaskId = `${base.taskId}.edited-${deadLetterId}-${stored!.editNonce}`;
    expect(stored!.editNonce).toMatch(/^[0-9a-f]{16}$/);
    expect(redrive).toMatchObject({ taskId: newTaskId, payload: edited, payloadEdited: true });

    // The new task: the old one's agent, queue and owner, a fresh allowance, the redrive counted.
    expect(await budgetOf(newTaskId)).toMatchObject({
      agent: 'mailer',
      queue: oldBudget!.queue,
      owner: 'team:web',
      status: 'active',
      retriesUsed: 0,
      spendMicros: 0,
      retryAllowance: oldBudget!.retryAllowance,
      redrivesUsed: 1,
    });
    // The old task is as it was; its dead letter is redriven and its hold cleared.
    expect(await budgetOf(base.taskId)).toEqual(oldBudget);
    const [letter] = await database.db.select().from(deadLetters).where(eq(deadLetters.id, deadLetterId));
    expect(letter!.status).toBe('redriven');
    const openHolds = await database.db
      .select()
      .from(holds)
      .where(and(eq(holds.itemType, 'dead_letter'), eq(holds.itemId, String(deadLetterId)), eq(holds.status, 'open')));
    expect(openHolds).toEqual([]);

    // Worked as the new task, the step that completed before runs again (a new key): nothing replays.
    let draftRuns = 0;
    const redrafted = await runStep(
      agentCtx(),
      { ...base, taskId: newTaskId, step: 'draft', content: { about: 'renewal' } },
      async () => {
        draftRuns += 1;
        return { result: 'draft v2' };
      },
    );
    expect(redrafted).toMatchObject({ status: 'completed', result: 'draft v2', attemptNumber: 1 });
    expect(draftRuns).toBe(1);
    const resent = await runStep(
      agentCtx(),
      { ...base, taskId: newTaskId, step: 'send', content: { ...edited, draft: 'draft v2' } },
      async () => ({ result: 'sent to ada@example.com' }),
    );
    expect(resent).toMatchObject({ status: 'completed', attemptNumber: 1 });

    // The old task's keys and stored results are untouched, and its completed step still replays.
    const oldKeysAfter = await database.db
      .select()
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.taskId, base.taskId));
    expect(oldKeysAfter).toEqual(oldKeys);
    const replayed = await runStep(agentCtx(), { ...base, step: 'draft', content: { about: 'renewal' } }, async () => {
      throw new Error('a completed step must not run again');
    });
    expect(replayed).toMatchObject({ status: 'replayed', result: 'draft v1' });

    // The audit record keeps what changed.
    const [record] = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'dead_letter.redrive'), eq(auditLog.targetId, String(deadLetterId))));
    expect(record!.after).toMatchObject({
      taskId: newTaskId,
      payloadChangeCount: 1,
      payloadChanges: [{ path: '$.recipient', change: 'changed', before: 'nobody@invalid', after: 'ada@example.com' }],
    });
  });

  it('with the same content (keys in another order) is a plain redrive of the same task', async () => {
    const { base, deadLetterId } = await taskDeadOnSend();
    const { redrive } = await redriveDeadLetter(oncallCtx(), {
      deadLetterId,
      reason: 'looked, nothing to change',
      payload: { recipient: 'nobody@invalid', draft: 'draft v1' },
    });
    expect(redrive).toMatchObject({ taskId: base.taskId, payloadEdited: false });
    expect(await budgetOf(base.taskId)).toMatchObject({ status: 'active', redrivesUsed: 1 });
  });

  it('carries the redrive count to the new task, so the brakes still see the lineage', async () => {
    const brakes = {
      ...DEFAULT_CORE_POLICY,
      redriveBrakes: { maxRedrives: 1, cooldownMs: 0, maxTaskAgeMs: 86_400_000 },
    };
    const { base, deadLetterId } = await taskDeadOnSend();
    const { redrive } = await redriveDeadLetter(oncallCtx(brakes), {
      deadLetterId,
      reason: 'first fix',
      payload: { recipient: 'typo@example', draft: 'draft v1' },
    });
    // The new task fails as well...
    const again = await runStep(
      agentCtx(),
      { ...base, taskId: redrive.taskId, step: 'send', content: { recipient: 'typo@example' } },
      async () => {
        throw new StepError('permanent', '400 Bad Request: the recipient address is invalid');
      },
    );
    if (!('deadLetterId' in again) || !again.deadLetterId) throw new Error('expected a second dead letter');
    // ...and one more edit is braked as a second redrive of the same work.
    await expect(
      redriveDeadLetter(oncallCtx(brakes), {
        deadLetterId: again.deadLetterId,
        reason: 'second fix',
        payload: { recipient: 'ada@example.com' },
      }),
    ).rejects.toMatchObject({ code: 'REDRIVE_REFUSED', rules: ['redrive_limit'] });
    expect(await database.db.select().from(redrives).where(eq(redrives.deadLetterId, again.deadLetterId))).toEqual([]);
  });

  it('refuses a payload over the size limit, naming the field, and writes nothing', async () => {
    const { deadLetterId } = await taskDeadOnSend();
    await expect(
      redriveDeadLetter(oncallCtx(), { deadLetterId, reason: 'too big', payload: { blob: 'x'.repeat(300 * 1024) } }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', fieldErrors: { payload: expect.any(Array) } });
    const [letter] = await database.db.select().from(deadLetters).where(eq(deadLetters.id, deadLetterId));
    expect(letter!.status).toBe('pending');
  });
});

describe('a redrive resets the step’s counting', () => {
  it('gives a redriven step its one corrective retry again', async () => {
    const step: BeginStepInput = {
      taskId: `summary-${randomUUID()}`,
      agent: 'summarizer',
      owner: 'team:web',
      step: 'summarize',
      content: { doc: 1 },
      retryAllowance: 5,
    };
    const failInvalid = async () => {
      const begun = await beginStep(agentCtx(), step);
      if (begun.decision !== 'run') throw new Error(`expected run: ${JSON.stringify(begun)}`);
      return finishStep(agentCtx(), {
        ...attemptOf(begun),
        outcome: 'failed',
        errorClass: 'invalid_output',
        errorText: 'the summary was not JSON',
      });
    };
    expect(await failInvalid()).toMatchObject({ decision: 'retry' });
    const exhausted = await failInvalid();
    expect(exhausted).toMatchObject({ decision: 'stop', reason: 'corrective_retry_used' });
    if (!('deadLetterId' in exhausted) || !exhausted.deadLetterId) throw new Error('expected a dead letter');

    await redriveDeadLetter(oncallCtx(), { deadLetterId: exhausted.deadLetterId, reason: 'prompt fixed' });
    // Attempt 3 of the key, but the first invalid output since the redrive: corrected once more.
    expect(await failInvalid()).toMatchObject({ decision: 'retry' });
    expect(await failInvalid()).toMatchObject({ decision: 'stop', reason: 'corrective_retry_used' });
  });
});
