import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { beginStep, recordAttempt, removeStepOwner, saveStepOwner } from '../../../packages/engine/src/core';
import { auditLog, stepOwners } from '../../../packages/engine/src/db/schema';
import { parseStepsView } from '../../../lib/filters/steps';
import { getStepOwner } from '../../../lib/queries/step-owners';
import { getStepsPage } from '../../../lib/queries/steps-page';
import { admin, anAgent, oncall } from '../../support/actors';
import { anAttempt } from '../../support/attempt-factory';
import { insertWebhookChannel } from '../../support/alerts';
import { addKnownOwners } from '../../support/known-owners';
import { aStepInput } from '../../support/step-input';
import { useTestDatabase } from '../../support/test-database';

/**
 * Who owns a step: what its agent declares (the owner of its newest task), an admin's owner for the agent, and
 * one for the step, which wins. Admins only, audited in the same transaction, the owner a known team or person.
 */
const database = useTestDatabase();
const worker = anAgent('owners-test');
const asAdmin = () => ({ db: database.db, actor: admin });
beforeAll(() => addKnownOwners(database.db, ['team:growth', 'team:payments', 'team:billing']));

/** A new agent with one step begun by a task owned by `owner`. */
async function agentDeclaring(owner: string, step = 'send') {
  const agent = `owned-${randomUUID().slice(0, 8)}`;
  const answer = await beginStep({ db: database.db, actor: worker }, aStepInput({ agent, step, owner }));
  expect(answer.decision).toBe('run');
  return agent;
}

const auditOf = (agent: string) =>
  database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.targetType, 'step_owner'), eq(auditLog.targetId, `${agent}/*`)));

describe('a step owner', () => {
  it('is what the agent declares until an admin names one; the newest task declares it', async () => {
    const agent = await agentDeclaring('team:growth');
    expect(await getStepOwner(database.db, { agent, step: 'send' })).toMatchObject({
      owner: 'team:growth',
      source: 'declared',
      declared: 'team:growth',
    });
    // A later task names another owner: the agent now declares that one.
    await beginStep({ db: database.db, actor: worker }, aStepInput({ agent, step: 'send', owner: 'team:billing' }));
    expect(await getStepOwner(database.db, { agent, step: 'send' })).toMatchObject({ owner: 'team:billing' });
  });

  it("is the admin's for the agent, then the admin's for the step; removing the step's falls back to the agent's", async () => {
    const agent = await agentDeclaring('team:growth');
    await beginStep({ db: database.db, actor: worker }, aStepInput({ agent, step: 'refund', owner: 'team:growth' }));
    const channel = await insertWebhookChannel(database.db, { name: `payments-${randomUUID()}`, team: 'payments' });

    const saved = await saveStepOwner(asAdmin(), {
      agent,
      step: '*',
      owner: 'team:payments',
      contact: 'payments-primary on PagerDuty',
      runbookUrl: 'https://runbooks.example.com/payments',
      reason: 'payments took the agent over',
    });
    expect(saved.changed).toBe(true);
    expect(await getStepOwner(database.db, { agent, step: 'send' })).toEqual({
      owner: 'team:payments',
      source: 'agent',
      contact: 'payments-primary on PagerDuty',
      runbookUrl: 'https://runbooks.example.com/payments',
      declared: 'team:growth',
      channels: expect.arrayContaining([channel.name]),
    });

    await saveStepOwner(asAdmin(), { agent, step: 'refund', owner: 'team:billing', reason: 'refunds are billing' });
    expect(await getStepOwner(database.db, { agent, step: 'refund' })).toMatchObject({
      owner: 'team:billing',
      source: 'step',
      contact: null,
      runbookUrl: null,
    });
    expect(await getStepOwner(database.db, { agent, step: 'send' })).toMatchObject({ owner: 'team:payments' });

    expect(await removeStepOwner(asAdmin(), { agent, step: 'refund', reason: 'back to payments' })).toEqual({
      removed: true,
    });
    expect(await getStepOwner(database.db, { agent, step: 'refund' })).toMatchObject({
      owner: 'team:payments',
      source: 'agent',
    });
    expect(await removeStepOwner(asAdmin(), { agent, step: 'refund', reason: 'again' })).toEqual({ removed: false });
  });

  it('is audited with who, why, before and after; saving the same again writes nothing', async () => {
    const agent = await agentDeclaring('team:growth');
    const input = { agent, step: '*', owner: 'team:payments', reason: 'ownership review' };
    expect((await saveStepOwner(asAdmin(), input)).changed).toBe(true);
    expect((await saveStepOwner(asAdmin(), input)).changed).toBe(false);
    await saveStepOwner(asAdmin(), { ...input, contact: 'payments-secondary', reason: 'new rotation' });
    const records = await auditOf(agent);
    expect(records.map((record) => [record.action, record.actorId, record.reason])).toEqual([
      ['owner.save', admin.id, 'ownership review'],
      ['owner.save', admin.id, 'new rotation'],
    ]);
    expect(records[1]).toMatchObject({
      before: { owner: 'team:payments', contact: null, runbookUrl: null },
      after: { owner: 'team:payments', contact: 'payments-secondary', runbookUrl: null },
    });
  });

  it('is refused to a responder, for an unknown team, an unknown step or a runbook that is not http(s); nothing written', async () => {
    const agent = await agentDeclaring('team:growth');
    const valid = { agent, step: '*', owner: 'team:payments', reason: 'why not' };
    await expect(saveStepOwner({ db: database.db, actor: oncall }, valid)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(saveStepOwner(asAdmin(), { ...valid, owner: 'team:made-up' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { owner: [expect.stringContaining('no known team or person')] },
    });
    await expect(saveStepOwner(asAdmin(), { ...valid, step: 'no_such_step' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(saveStepOwner(asAdmin(), { ...valid, runbookUrl: 'javascript:alert(1)' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { runbookUrl: expect.any(Array) },
    });
    await expect(saveStepOwner(asAdmin(), { ...valid, contact: 'x'.repeat(201) })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { contact: expect.any(Array) },
    });
    expect(await database.db.select().from(stepOwners).where(eq(stepOwners.agent, agent))).toEqual([]);
    expect(await auditOf(agent)).toEqual([]);
  });

  it('decides which steps the Steps page keeps for an owner and for "mine", and lists the owners to choose', async () => {
    const now = new Date();
    const payments = await agentDeclaring('team:payments');
    const growth = await agentDeclaring('team:growth');
    // The page lists steps with attempts in the window: each agent's step reports one.
    for (const agent of [payments, growth]) {
      const startedAt = new Date(now.getTime() - 60_000);
      await recordAttempt(
        { db: database.db, actor: worker },
        anAttempt({ agent, step: 'send', startedAt, finishedAt: new Date(startedAt.getTime() + 500) }),
      );
    }
    const read = (params: Record<string, string>, me: string[] = []) =>
      getStepsPage(database.db, parseStepsView({ window: '1h', ...params }, now), undefined, now, me);
    const agentsShown = async (params: Record<string, string>, me: string[] = []) =>
      (await read(params, me)).steps
        .map((row) => row.agent)
        .filter((agent) => agent === payments || agent === growth)
        .sort();
    expect(await agentsShown({ owner: 'team:payments' })).toEqual([payments]);
    expect(await agentsShown({ owner: 'mine' }, ['team:growth', 'person:vic@example.com'])).toEqual([growth]);
    expect(await agentsShown({ owner: 'mine' }, [])).toEqual([]);
    expect(await agentsShown({})).toEqual([payments, growth].sort());
    const page = await read({});
    expect(page.ownerChoices).toEqual(expect.arrayContaining(['team:growth', 'team:payments']));
    expect(page.owners.get(`${payments}/send`)).toMatchObject({ owner: 'team:payments', source: 'declared' });
    // A bad owner parameter falls back to everyone's steps, with a notice.
    expect(parseStepsView({ owner: 'payments' }, now).notices).toEqual([expect.stringContaining('owner')]);
  });
});
