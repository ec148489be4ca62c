import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { redriveDeadLetter } from '../../../packages/engine/src/core';
import { NOT_YOURS } from '../../../packages/engine/src/core/identity/authorization';
import { deadLetters, redrives, taskAgents } from '../../../packages/engine/src/db/schema';
import { useApi } from '../../support/api-harness';
import { oncall } from '../../support/actors';
import { aDeadLetterInput } from '../../support/dead-letter-input';
import { issueToken } from '../../support/api-tokens';
import { failedChatExport } from '../../support/otlp-json';

/**
 * A task has one agent, whichever path saw it first (task_agents), and no token can take another agent's task
 * or the ids Holdfast derives for it: the squatting findings of the tenancy review, each tried as a hostile
 * `research` token would, with the victim `payments` checked in the database afterwards.
 */
const api = useApi();
const tokens = { research: '', researchQueue: '', payments: '' };

beforeAll(async () => {
  tokens.research = (await issueToken(api.database.db, { name: 'research', allowedAgents: ['research'] })).token;
  tokens.researchQueue = (
    await issueToken(api.database.db, { name: 'research-queue', allowedQueues: ['research'] })
  ).token;
  tokens.payments = (await issueToken(api.database.db, { name: 'payments', allowedAgents: ['payments'] })).token;
});

const begin = (token: string, taskId: string, agent: string, step = 'charge') =>
  api.request('/api/v1/steps/begin', {
    token,
    body: { taskId, agent, owner: `team:${agent}`, step, content: { order: 1 } },
  });

/** One counted model call of `taskId`'s step `charge`, as `agent` (service.name) or the agent a span names. */
const spanExport = failedChatExport;

async function rowsOf(taskId: string) {
  const [counts] = await api.database.sql<{ attempts: number; spans: number; budgets: number }[]>`
    select (select count(*)::int from attempts where task_id = ${taskId}) as attempts,
      (select count(*)::int from trace_spans where task_id = ${taskId}) as spans,
      (select count(*)::int from task_budgets where task_id = ${taskId}) as budgets`;
  const [owner] = await api.database.db.select().from(taskAgents).where(eq(taskAgents.taskId, taskId));
  return { ...counts!, agent: owner?.agent, queue: owner?.queue };
}

describe('a task has one agent, whichever path saw it first; each agent names its own tasks', () => {
  it("an id first seen in another agent's spans: the agent's begin runs its own task, under its alias", async () => {
    const taskId = `order-${randomUUID()}`;
    const exported = await api.request('/v1/traces', { token: tokens.research, body: spanExport(taskId, 'research') });
    expect(exported).toMatchObject({ status: 200, body: {} });
    const researchRows = await rowsOf(taskId);
    expect(researchRows).toEqual({ attempts: 1, spans: 1, budgets: 0, agent: 'research', queue: 'research' });

    const begun = await begin(tokens.payments, taskId, 'payments');
    expect(begun).toMatchObject({ status: 200, body: { decision: 'run' } });
    expect(String(begun.body.key)).toBe(`~payments/${taskId}/charge`);
    expect(await rowsOf(`~payments/${taskId}`)).toMatchObject({ budgets: 1, agent: 'payments', queue: 'payments' });
    // The same begin again (a redelivery), with an unlimited token for payments too, finds the same step running.
    const again = await begin(api.ingestToken, taskId, 'payments');
    expect(again).toMatchObject({ status: 409, body: { code: 'KEY_IN_PROGRESS' } });
    expect(await rowsOf(taskId)).toEqual(researchRows);

    // Its own agent goes on with the step protocol on the task the spans started.
    expect(await begin(tokens.research, taskId, 'research', 'summarize')).toMatchObject({ status: 200 });
    expect(await rowsOf(taskId)).toMatchObject({ budgets: 1, agent: 'research' });
  });

  it("an id first seen in another agent's attempt report: the agent's begins, spans and reports go to its own task", async () => {
    const taskId = `order-${randomUUID()}`;
    const at = new Date(Date.now() - 5_000).toISOString();
    const report = { taskId, step: 'charge', attemptNumber: 1, startedAt: at, finishedAt: at, outcome: 'succeeded' };
    const first = await api.request('/api/v1/attempts', {
      token: tokens.research,
      body: { ...report, agent: 'research' },
    });
    expect(first.status).toBe(201);
    const researchRows = await rowsOf(taskId);

    const alias = `~payments/${taskId}`;
    expect(await begin(api.ingestToken, taskId, 'payments')).toMatchObject({ status: 200 });
    const spans = await api.request('/v1/traces', { token: tokens.payments, body: spanExport(taskId, 'payments') });
    expect(spans).toMatchObject({ status: 200, body: {} });
    const reported = await api.request('/api/v1/attempts', {
      token: tokens.payments,
      body: { ...report, agent: 'payments', attemptNumber: 7 },
    });
    expect(reported).toMatchObject({ status: 201, body: { attempt: { taskId: alias } } });
    expect(await rowsOf(alias)).toMatchObject({ spans: 1, budgets: 1, agent: 'payments' });
    expect(await rowsOf(taskId)).toEqual(researchRows);

    // A request for research may not name payments' alias, on any path.
    expect(await begin(tokens.research, alias, 'research')).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    expect(await begin(api.ingestToken, alias, 'research')).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    const forged = await api.request('/v1/traces', { token: tokens.research, body: spanExport(alias, 'research') });
    expect(forged.body).toMatchObject({ partialSuccess: { rejectedSpans: '1' } });
    const forgedReport = await api.request('/api/v1/attempts', {
      token: api.ingestToken,
      body: { ...report, taskId: alias, agent: 'research', attemptNumber: 9 },
    });
    expect(forgedReport).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    expect(await rowsOf(alias)).toMatchObject({ spans: 1, budgets: 1, agent: 'payments' });
  });

  it("an order number another agent took first: the rightful agent's whole task still runs", async () => {
    const order = `order-${randomUUID()}`;
    // research (a limited token) takes the id first.
    expect(await begin(tokens.research, order, 'research')).toMatchObject({ status: 200 });
    // payments' worker: begin, finish, the step again (a replay), a raw key of its task, finishing the task.
    const charge = await begin(tokens.payments, order, 'payments');
    expect(charge).toMatchObject({ status: 200, body: { decision: 'run' } });
    const finished = await api.request('/api/v1/steps/finish', {
      token: tokens.payments,
      body: { key: charge.body.key, fencingToken: charge.body.fencingToken, outcome: 'succeeded', result: { ok: 1 } },
    });
    expect(finished.status).toBe(200);
    expect(await begin(tokens.payments, order, 'payments')).toMatchObject({
      status: 200,
      body: { decision: 'replay', result: { ok: 1 } },
    });
    const raw = await api.request('/api/v1/keys/claim', {
      token: tokens.payments,
      body: { key: `refund-${randomUUID()}`, requestHash: 'h', taskId: order },
    });
    expect(raw.status).toBe(200);
    const done = await api.request('/api/v1/tasks/finish', {
      token: tokens.payments,
      body: { taskId: order, outcome: 'completed' },
    });
    expect(done).toMatchObject({ status: 200, body: { taskId: `~payments/${order}`, status: 'completed' } });
    // research's task of that name is its own, untouched by payments' work.
    expect(await rowsOf(order)).toMatchObject({ budgets: 1, agent: 'research' });
    const [research] = await api.database.sql<{ status: string }[]>`
      select status from task_budgets where task_id = ${order}`;
    expect(research!.status).toBe('active');
  });

  it("a queue-limited token cannot write spans into another queue's task, nor make tasks for other agents", async () => {
    const payments = `pay-${randomUUID()}`;
    expect(await begin(tokens.payments, payments, 'payments')).toMatchObject({ status: 200 });
    const before = await rowsOf(payments);

    // The finding: a span naming payments' task and agent, sent with a token limited to queue research.
    const forged = await api.request('/v1/traces', {
      token: tokens.researchQueue,
      body: spanExport(payments, 'research', { 'holdfast.agent': 'payments' }),
    });
    expect(forged).toMatchObject({ status: 200, body: { partialSuccess: { rejectedSpans: '1' } } });
    // Refused as "not yours": the answer does not say whose the task is.
    expect(String((forged.body.partialSuccess as { errorMessage: string }).errorMessage)).not.toContain('payments');
    expect(await rowsOf(payments)).toEqual(before);

    // A new task of any other agent is on that agent's queue: refused too, and no agent is made.
    const invented = `inv-${randomUUID()}`;
    const other = await api.request('/v1/traces', {
      token: tokens.researchQueue,
      body: spanExport(invented, `agent-${randomUUID().slice(0, 8)}`),
    });
    expect(other.body).toMatchObject({ partialSuccess: { rejectedSpans: '1' } });
    expect(await rowsOf(invented)).toEqual({ attempts: 0, spans: 0, budgets: 0, agent: undefined, queue: undefined });

    // Its own agent's spans are taken.
    const own = `own-${randomUUID()}`;
    expect(
      (await api.request('/v1/traces', { token: tokens.researchQueue, body: spanExport(own, 'research') })).body,
    ).toEqual({});
    expect(await rowsOf(own)).toMatchObject({ attempts: 1, agent: 'research' });
  });
});

/** A payments task dead-lettered through the API, as its own worker would. */
async function paymentsDeadLetter() {
  const taskId = `pay-${randomUUID()}`;
  const letter = await api.request('/api/v1/dead-letters', {
    token: tokens.payments,
    body: aDeadLetterInput({ taskId, payload: { amount: 100 } }),
  });
  expect(letter.status).toBe(201);
  return { taskId, id: Number((letter.body.deadLetter as { id: number }).id) };
}

describe('ids Holdfast derives cannot be taken first', () => {
  it('an edited redrive succeeds though another agent began every id it could work out from the dead letter', async () => {
    const { taskId, id } = await paymentsDeadLetter();
    // The ids an edited redrive ran as before (sequential dead letter ids), begun first by research.
    for (const squatted of [`${taskId}.edited-${id}`, `${taskId}.edited-${id + 1}`]) {
      expect(await begin(tokens.research, squatted, 'research')).toMatchObject({ status: 200 });
    }
    const { redrive } = await redriveDeadLetter(
      { db: api.database.db, actor: oncall },
      { deadLetterId: id, reason: 'amount corrected', payload: { amount: 90 } },
    );
    const [letter] = await api.database.db.select().from(deadLetters).where(eq(deadLetters.id, id));
    expect(redrive.taskId).toBe(`${taskId}.edited-${id}-${letter!.editNonce}`);
    // Its task is payments' before anyone begins it (an agent's dead letter carries no budget row to copy).
    expect(await rowsOf(redrive.taskId)).toMatchObject({ budgets: 0, agent: 'payments', queue: 'payments' });
    const paymentsRows = await rowsOf(redrive.taskId);
    // research naming that id begins a task of its own, under its alias; payments' is untouched.
    expect(await begin(tokens.research, redrive.taskId, 'research')).toMatchObject({
      status: 200,
      body: { key: `~research/${redrive.taskId}/charge` },
    });
    expect(await rowsOf(redrive.taskId)).toEqual(paymentsRows);
    // payments' worker runs the redriven task.
    expect(await begin(tokens.payments, redrive.taskId, 'payments')).toMatchObject({ status: 200 });
  });

  it("a token limited to agents claims only its agents' redrives, whatever queues it names, and cannot acknowledge another's", async () => {
    const { id } = await paymentsDeadLetter();
    await redriveDeadLetter({ db: api.database.db, actor: oncall }, { deadLetterId: id, reason: 'card updated' });
    const [before] = await api.database.db.select().from(redrives).where(eq(redrives.deadLetterId, id));

    const claimed = await api.request('/api/v1/redrives/claim', {
      token: tokens.research,
      body: { queues: ['payments'], limit: 100 },
    });
    expect(claimed.status).toBe(200);
    expect((claimed.body.redrives as { deadLetterId: number }[]).map((row) => row.deadLetterId)).not.toContain(id);
    const acknowledged = await api.request('/api/v1/redrives/ack', {
      token: tokens.research,
      body: { outboxKey: before!.outboxKey },
    });
    expect(acknowledged).toMatchObject({ status: 403, body: { code: 'FORBIDDEN', detail: NOT_YOURS } });
    const [after] = await api.database.db.select().from(redrives).where(eq(redrives.deadLetterId, id));
    expect(after).toEqual(before);

    // payments' own drainer gets it.
    const own = await api.request('/api/v1/redrives/claim', { token: tokens.payments, body: { limit: 100 } });
    expect((own.body.redrives as { deadLetterId: number }[]).map((row) => row.deadLetterId)).toContain(id);
  });
});
