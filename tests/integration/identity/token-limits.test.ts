import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  authenticateApiToken,
  beginStep,
  claimRedrives,
  createApiToken,
  deadLetterTask,
  recordAttempt,
  redriveDeadLetter,
  type Actor,
} from '../../../packages/engine/src/core';
import { deadLetters, holds, redrives, runs, taskBudgets } from '../../../packages/engine/src/db/schema';
import { useApi } from '../../support/api-harness';
import { NOT_YOURS } from '../../../packages/engine/src/core/identity/authorization';
import { admin, aPerson, anAgent } from '../../support/actors';
import { aDeadLetterInput } from '../../support/dead-letter-input';
import { anAttemptBody } from '../../support/attempt-factory';
import { attemptOf } from '../../support/step-input';

const api = useApi();
const responder = aPerson('responder', 'rex@example.com');
/** An unlimited worker: it sets up another team's work for the limited token to try to touch. */
const payments = anAgent('payments-worker');
const tokens = { limited: '', limitedActor: undefined as Actor | undefined };

beforeAll(async () => {
  const { token } = await createApiToken(
    { db: api.database.db, actor: admin },
    {
      name: 'outreach-only',
      scopes: ['ingest'],
      allowedAgents: ['outreach'],
      allowedQueues: ['outreach'],
    },
  );
  tokens.limited = token;
  tokens.limitedActor = await authenticateApiToken(api.database.db, `Bearer ${token}`);
});

const post = (path: string, body: unknown) => api.request(path, { body, token: tokens.limited });
const agentRefusal = expect.stringContaining('this token may act only for agents outreach, not "payments"');
const queueRefusal = expect.stringContaining('this token may act only on queues outreach, not "payments"');
/** A stored task, run, key or redrive outside the limits is refused without saying whose it is. */
const notYours = NOT_YOURS;

function expectRefused(response: { status: number; body: Record<string, unknown> }, detail = agentRefusal) {
  expect(response).toMatchObject({ status: 403, body: { code: 'FORBIDDEN', detail } });
}

/** Another team's step, begun by its own (unlimited) worker: a live key of agent payments. */
async function paymentsStep() {
  const taskId = `pay-${randomUUID()}`;
  const begun = await api.request('/api/v1/steps/begin', {
    body: { taskId, agent: 'payments', owner: 'team:payments', step: 'charge', content: { cents: 100 } },
  });
  expect(begun.status).toBe(200);
  return { taskId, key: String(begun.body.key), fencingToken: Number(begun.body.fencingToken) };
}

async function deadLetterOn(queue: string, agent = queue) {
  const { deadLetter } = await deadLetterTask(
    api.database.db,
    payments,
    aDeadLetterInput({
      taskId: `${queue}-${randomUUID()}`,
      agent,
      step: 'send',
      queue,
      lastError: 'refused',
      owner: `team:${queue}`,
    }),
  );
  return deadLetter;
}

describe('a token limited to agents and queues', () => {
  it('carries its limits from authentication', () => {
    expect(tokens.limitedActor).toMatchObject({
      type: 'agent',
      allowedAgents: ['outreach'],
      allowedQueues: ['outreach'],
    });
  });

  it('works for its own agent and queue', async () => {
    const taskId = `out-${randomUUID()}`;
    const begun = await post('/api/v1/steps/begin', {
      taskId,
      agent: 'outreach',
      owner: 'team:outreach',
      step: 'draft',
      content: {},
    });
    expect(begun).toMatchObject({ status: 200, body: { decision: 'run' } });
    const finished = await post('/api/v1/steps/finish', {
      key: begun.body.key,
      fencingToken: begun.body.fencingToken,
      outcome: 'succeeded',
      result: { ok: true },
    });
    expect(finished).toMatchObject({ status: 200, body: { decision: 'completed' } });
    expect((await post('/api/v1/tasks/finish', { taskId, outcome: 'completed' })).status).toBe(200);
  });

  it("may not begin, finish or end another agent's steps and tasks, nor begin its own agent on another queue", async () => {
    const other = await paymentsStep();
    expectRefused(
      await post('/api/v1/steps/begin', {
        taskId: `x-${randomUUID()}`,
        agent: 'payments',
        owner: 'team:payments',
        step: 'charge',
        content: {},
      }),
    );
    expectRefused(
      await post('/api/v1/steps/begin', {
        taskId: `x-${randomUUID()}`,
        agent: 'outreach',
        queue: 'payments',
        owner: 'team:outreach',
        step: 'send',
        content: {},
      }),
      queueRefusal,
    );
    expectRefused(
      await post('/api/v1/steps/finish', {
        ...attemptOf(other),
        outcome: 'failed',
        errorClass: 'permanent',
        errorText: 'no',
      }),
    );
    expectRefused(await post('/api/v1/tasks/finish', { taskId: other.taskId, outcome: 'discarded' }), notYours);
    const [task] = await api.database.db.select().from(taskBudgets).where(eq(taskBudgets.taskId, other.taskId));
    expect(task?.status).toBe('active');
  });

  it("may not hang its own agent's new task under another agent's task", async () => {
    const other = await paymentsStep();
    const taskId = `out-${randomUUID()}`;
    const refused = await post('/api/v1/steps/begin', {
      taskId,
      agent: 'outreach',
      owner: 'team:growth',
      step: 'send',
      content: {},
      parentTaskId: other.taskId,
    });
    expectRefused(refused);
    // Nothing was written: the task does not exist.
    expect(await api.database.db.select().from(taskBudgets).where(eq(taskBudgets.taskId, taskId))).toEqual([]);
  });

  it('may not report attempts for another agent, alone or in a batch (all or nothing)', async () => {
    const attempt = (agent: string) => anAttemptBody({ taskId: `t-${randomUUID()}`, agent, step: 'send' });
    expectRefused(await post('/api/v1/attempts', attempt('payments')));
    const first = attempt('outreach');
    const batch = await post('/api/v1/attempts/batch', { attempts: [first, attempt('payments')] });
    expectRefused(batch);
    expect(batch.body.detail).toMatch(/^attempts\.1: /);
    expect(await api.database.sql`select 1 from attempts where task_id = ${first.taskId}`).toHaveLength(0);
    expect((await post('/api/v1/attempts', attempt('outreach'))).status).toBe(201);

    const fortyDaysAgo = Date.now() - 40 * 86_400_000;
    const old = {
      ...attempt('outreach'),
      startedAt: new Date(fortyDaysAgo).toISOString(),
      finishedAt: new Date(fortyDaysAgo + 500).toISOString(),
    };
    const dated = await post('/api/v1/attempts/batch', { attempts: [attempt('outreach'), old] });
    expect(dated).toMatchObject({
      status: 400,
      body: {
        code: 'INVALID_INPUT',
        fieldErrors: { 'attempts.1.startedAt': [expect.stringContaining('within the last 30 days')] },
      },
    });
  });

  it("may not claim, complete or fail the keys of another agent's task", async () => {
    const other = await paymentsStep();
    expectRefused(
      await post('/api/v1/keys/claim', { key: `raw-${randomUUID()}`, requestHash: 'h', taskId: other.taskId }),
      notYours,
    );
    // A raw key of the payments task, claimed by its own worker: the limited token may not settle it.
    const rawKey = `raw-${randomUUID()}`;
    const claimed = await api.request('/api/v1/keys/claim', {
      body: { key: rawKey, requestHash: 'h', taskId: other.taskId },
    });
    expect(claimed.status).toBe(200);
    const rawToken = Number(claimed.body.fencingToken);
    expectRefused(await post('/api/v1/keys/complete', { key: rawKey, fencingToken: rawToken, result: null }), notYours);
    expectRefused(
      await post('/api/v1/keys/fail', {
        key: rawKey,
        fencingToken: rawToken,
        errorClass: 'permanent',
        errorText: 'no',
      }),
      notYours,
    );
    // The step key itself is out of the raw API's reach for every token: raw names never meet step keys.
    for (const path of ['/api/v1/keys/complete', '/api/v1/keys/fail']) {
      const body = { key: other.key, fencingToken: other.fencingToken, errorClass: 'permanent', errorText: 'no' };
      const settled = await post(
        path,
        path.endsWith('complete') ? { key: other.key, fencingToken: other.fencingToken, result: null } : body,
      );
      expect(settled).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    }
  });

  it("may not start, beat or finish another agent's runs, nor take a slot for one", async () => {
    expectRefused(await post('/api/v1/runs/start', { runKey: `run-${randomUUID()}`, taskId: 't', agent: 'payments' }));
    const runKey = `run-${randomUUID()}`;
    expect((await api.request('/api/v1/runs/start', { body: { runKey, taskId: 't', agent: 'payments' } })).status).toBe(
      200,
    );
    expectRefused(await post('/api/v1/runs/heartbeat', { runKey }), notYours);
    expectRefused(
      await post('/api/v1/slots/acquire', { slot: `slot-${randomUUID()}`, runKey, ttlMs: 60_000 }),
      notYours,
    );
    expectRefused(await post('/api/v1/runs/finish', { runKey, status: 'finished' }), notYours);
    const [run] = await api.database.db.select().from(runs).where(eq(runs.runKey, runKey));
    expect(run?.status).toBe('running');
  });

  it("may not hold another agent's items, nor dead-letter another agent's or queue's task", async () => {
    const other = await paymentsStep();
    expectRefused(
      await post('/api/v1/holds', {
        itemType: 'key',
        itemId: other.key,
        reason: 'manual',
        detail: 'resume me',
        owner: 'person:viewer@example.com',
      }),
    );
    expectRefused(
      await post('/api/v1/holds', {
        itemType: 'task',
        itemId: other.taskId,
        reason: 'manual',
        detail: 'x',
        owner: 'team:outreach',
      }),
    );
    const [hold] = await api.database.db.select().from(holds).where(eq(holds.itemId, other.key));
    expect(hold).toBeUndefined();

    const letter = {
      taskId: `dl-${randomUUID()}`,
      step: 'send',
      payload: {},
      reason: 'permanent_error',
      errorClass: 'permanent',
      lastError: 'x',
      attempts: 1,
      spendMicros: 0,
      owner: 'team:outreach',
    };
    expectRefused(await post('/api/v1/dead-letters', { ...letter, agent: 'payments', queue: 'outreach' }));
    expectRefused(
      await post('/api/v1/dead-letters', { ...letter, agent: 'outreach', queue: 'payments' }),
      queueRefusal,
    );
    expect(await api.database.db.select().from(deadLetters).where(eq(deadLetters.taskId, letter.taskId))).toHaveLength(
      0,
    );
  });

  it("claims only its own queues' redrives, and may not acknowledge another queue's", async () => {
    const mine = await redriveDeadLetter(
      { db: api.database.db, actor: responder },
      { deadLetterId: (await deadLetterOn('outreach')).id, reason: 'fixed' },
    );
    const theirs = await redriveDeadLetter(
      { db: api.database.db, actor: responder },
      { deadLetterId: (await deadLetterOn('payments')).id, reason: 'fixed' },
    );

    expectRefused(await post('/api/v1/redrives/claim', { queues: ['outreach', 'payments'] }), queueRefusal);
    const claimed = await post('/api/v1/redrives/claim', { limit: 500 });
    expect(claimed.status).toBe(200);
    const queues = new Set((claimed.body.redrives as { queue: string }[]).map((redrive) => redrive.queue));
    expect([...queues]).toEqual(['outreach']);
    expect((claimed.body.redrives as { outboxKey: string }[]).map((redrive) => redrive.outboxKey)).toContain(
      mine.redrive.outboxKey,
    );

    expectRefused(await post('/api/v1/redrives/ack', { outboxKey: theirs.redrive.outboxKey }), notYours);
    const [stillDue] = await api.database.db
      .select()
      .from(redrives)
      .where(eq(redrives.outboxKey, theirs.redrive.outboxKey));
    expect(stillDue?.deliveredAt).toBeNull();
    expect((await post('/api/v1/redrives/ack', { outboxKey: mine.redrive.outboxKey })).status).toBe(200);
  });

  it('is enforced in-process too: the library refuses the same actor the API does', async () => {
    const ctx = { db: api.database.db, actor: tokens.limitedActor };
    await expect(
      beginStep(ctx, {
        taskId: `x-${randomUUID()}`,
        agent: 'payments',
        owner: 'team:payments',
        step: 'charge',
        content: {},
      }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN', message: agentRefusal });
    await expect(
      recordAttempt(ctx, {
        taskId: 't',
        agent: 'payments',
        step: 's',
        attemptNumber: 1,
        startedAt: new Date(),
        finishedAt: new Date(),
        outcome: 'succeeded',
      }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(claimRedrives(ctx, { queues: ['payments'] })).rejects.toMatchObject({
      code: 'FORBIDDEN',
      message: queueRefusal,
    });
  });

  it('leaves an unlimited token free to act for any agent', async () => {
    const other = await paymentsStep();
    expect(
      (await api.request('/api/v1/tasks/finish', { body: { taskId: other.taskId, outcome: 'discarded' } })).status,
    ).toBe(200);
  });
});
