import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { beginStep, ensureTaskBudget, openHold, savePerson } from '../../../packages/engine/src/core';
import { auditLog, holds, taskBudgets } from '../../../packages/engine/src/db/schema';
import { resetMetricsProcessState, scrapeMetrics } from '../../../packages/engine/src/metrics/scrape';
import { useApi } from '../../support/api-harness';
import { aPerson, anAgent } from '../../support/actors';
import { aDeadLetterInput } from '../../support/dead-letter-input';

const api = useApi();
const db = () => api.database.db;
const admin = aPerson('admin', 'admin@example.com');
const agent = anAgent('payments-worker');

beforeAll(async () => {
  // Known: a team people are in, a person, and a team an alert channel is routed to.
  await savePerson(
    { db: db(), actor: admin },
    { email: 'lead@example.com', displayName: 'Lead', role: 'viewer', teams: ['payments'] },
  );
  await db().execute(sql`
    insert into alert_channels (name, kind, url, url_hint, team, created_by)
    values ('routed', 'slack', 'https://hooks.slack.com/services/x', 'https://hooks.slack.com', 'routed', 'person:admin@example.com')`);
});

async function aTask(owner = 'team:payments') {
  const taskId = `owners-${randomUUID()}`;
  await ensureTaskBudget(db(), { taskId, agent: 'payments', owner });
  return taskId;
}

async function openOverHttp(owner: string) {
  const answer = await api.request('/api/v1/holds', {
    body: {
      itemType: 'task',
      itemId: await aTask(),
      reason: 'needs_approval',
      detail: 'Refund above the limit',
      owner,
    },
  });
  expect(answer.status).toBe(201);
  return (answer.body as { hold: { id: number; owner: string; detail: string } }).hold;
}

const auditOf = async (holdId: number) =>
  (
    await db()
      .select({ after: auditLog.after })
      .from(auditLog)
      .where(and(eq(auditLog.action, 'hold.open'), eq(auditLog.targetId, String(holdId))))
  ).map((row) => row.after);

describe('hold owners are a known team or person, else the default owner', () => {
  it('an unknown team or person gets the default owner, and the hold and its audit record say what was asked for', async () => {
    for (const unknown of ['team:nobody', 'person:stranger@example.com']) {
      const hold = await openOverHttp(unknown);
      expect(hold.owner).toBe('team:platform');
      expect(hold.detail).toBe(
        `Refund above the limit\n\nHeld for team:platform: the owner named, "${unknown}", is not a known team or person.`,
      );
      expect(await auditOf(hold.id)).toEqual([
        {
          itemType: 'task',
          itemId: expect.any(String),
          reason: 'needs_approval',
          owner: 'team:platform',
          requestedOwner: unknown,
        },
      ]);
    }
  });

  it("keeps a known team (people's or an alert channel's), a known person (as their id is written) and the default owner", async () => {
    const cases = [
      ['team:payments', 'team:payments'],
      ['team:routed', 'team:routed'],
      ['person:Lead@Example.com', 'person:lead@example.com'],
      ['team:platform', 'team:platform'],
    ];
    for (const [asked, kept] of cases) {
      const hold = await openOverHttp(asked!);
      expect(hold.owner, asked).toBe(kept);
      expect(hold.detail).toBe('Refund above the limit');
      expect((await auditOf(hold.id))[0]).not.toHaveProperty('requestedOwner');
    }
  });

  it("a task's owner on its first begin: an unknown one is stored as the default owner, a known one kept", async () => {
    const begin = async (owner: string) => {
      const taskId = `owners-${randomUUID()}`;
      const answer = await api.request('/api/v1/steps/begin', {
        body: { taskId, agent: 'payments', owner, step: 'charge_card', content: { amount: 1 } },
      });
      expect(answer.status).toBe(200);
      const [task] = await db()
        .select({ owner: taskBudgets.owner })
        .from(taskBudgets)
        .where(eq(taskBudgets.taskId, taskId));
      return task?.owner;
    };
    expect(await begin('team:made-up')).toBe('team:platform');
    expect(await begin('team:payments')).toBe('team:payments');
  });

  it('a dead letter an agent reports for an unknown owner is held for the default owner', async () => {
    const answer = await api.request('/api/v1/dead-letters', {
      body: aDeadLetterInput({
        taskId: await aTask(),
        step: 'charge_card',
        payload: { amount: 1 },
        lastError: '400 card declined',
        owner: 'team:ghosts',
      }),
    });
    expect(answer.status).toBe(201);
    expect((answer.body as { hold: { owner: string } }).hold.owner).toBe('team:platform');
  });

  it('the default owner is the configured one (HOLDFAST_DEFAULT_OWNER, through the policy)', async () => {
    const policy = { defaultOwner: 'team:payments' };
    const { hold } = await openHold(
      { db: db(), actor: agent, policy },
      { itemType: 'task', itemId: await aTask(), reason: 'manual', detail: 'Look at this', owner: 'team:elsewhere' },
    );
    expect(hold.owner).toBe('team:payments');
    const taskId = `owners-${randomUUID()}`;
    await beginStep(
      { db: db(), policy },
      { taskId, agent: 'payments', owner: 'team:elsewhere', step: 'charge_card', content: {} },
    );
    const [task] = await db()
      .select({ owner: taskBudgets.owner })
      .from(taskBudgets)
      .where(eq(taskBudgets.taskId, taskId));
    expect(task?.owner).toBe('team:payments');
  });

  it('so holds_open{owner_team} carries only known teams, whatever owners the agents named', async () => {
    resetMetricsProcessState();
    const text = await scrapeMetrics(db(), { maxAgeMs: 0 });
    const teams = new Set([...text.matchAll(/owner_team="([^"]*)"/g)].map((match) => match[1]));
    expect([...teams].sort()).toEqual(['payments', 'person', 'platform', 'routed']);
    const [open] = await db().select({ count: sql<number>`count(*)::int` }).from(holds).where(eq(holds.status, 'open'));
    expect(open?.count).toBe(8);
  });
});
