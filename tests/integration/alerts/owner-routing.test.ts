import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { evaluateAlerts } from '../../../packages/engine/src/alerts/evaluate';
import { recordAttempt, saveStepOwner } from '../../../packages/engine/src/core';
import { alertDeliveries, alertInstances, budgetRefusalMinutes } from '../../../packages/engine/src/db/schema';
import { admin, anAgent } from '../../support/actors';
import { insertWebhookChannel, useAlertHours } from '../../support/alerts';
import { anAttempt } from '../../support/attempt-factory';
import { addKnownOwners } from '../../support/known-owners';
import { useTestDatabase } from '../../support/test-database';

/**
 * An alert about a step reaches the team that owns it: the step's owner team's channels, and the channels
 * routed to every alert; another team's channel hears nothing of it.
 */
const database = useTestDatabase();
const { at } = useAlertHours(database);

/** The firing alert about agent/step, and the channels it was sent to. */
async function alertAbout(agent: string, step: string) {
  const [alert] = await database.db
    .select()
    .from(alertInstances)
    .where(eq(alertInstances.identity, `step:${agent}/${step}`));
  const deliveries = await database.db.select().from(alertDeliveries).where(eq(alertDeliveries.instanceId, alert!.id));
  return { alert, channels: deliveries.map((delivery) => delivery.channelId) };
}

async function refusalBurst(agent: string, step: string, minutes: number) {
  await database.db
    .insert(budgetRefusalMinutes)
    .values({ minute: at(minutes), agent, step, reason: 'retry_ceiling', refusals: 100 });
}

describe("a step's alert", () => {
  it("goes to its owner's team and to every channel without a team, not to another team's", async () => {
    await addKnownOwners(database.db, ['team:payments', 'team:growth']);
    const agent = `routed-${randomUUID().slice(0, 8)}`;
    // The step is known to Holdfast from an attempt a minute ago (the alert hours are the tests' own).
    const started = new Date(Date.now() - 60_000);
    await recordAttempt(
      { db: database.db, actor: anAgent('routing-test') },
      anAttempt({ agent, step: 'charge', startedAt: started, finishedAt: started }),
    );
    await saveStepOwner(
      { db: database.db, actor: admin },
      { agent, step: '*', owner: 'team:payments', reason: 'payments owns it' },
    );
    const payments = await insertWebhookChannel(database.db, { name: `payments-${randomUUID()}`, team: 'payments' });
    const growth = await insertWebhookChannel(database.db, { name: `growth-${randomUUID()}`, team: 'growth' });

    await refusalBurst(agent, 'charge', 0);
    await evaluateAlerts({ db: database.db }, { now: at(0) });

    const { alert, channels } = await alertAbout(agent, 'charge');
    expect(alert).toMatchObject({ kind: 'budget_refusals', status: 'firing', team: 'payments' });
    expect(channels).toContain(payments.id);
    expect(channels).not.toContain(growth.id);
    // The channel useAlertHours made has no team: it hears every alert.
    expect(channels).toHaveLength(2);
  });

  it('of a step nobody owns goes to the channels without a team only', async () => {
    const agent = `unowned-${randomUUID().slice(0, 8)}`;
    const growth = await insertWebhookChannel(database.db, { name: `growth-${randomUUID()}`, team: 'growth' });
    await refusalBurst(agent, 'charge', 0);
    await evaluateAlerts({ db: database.db }, { now: at(0) });
    const { alert, channels } = await alertAbout(agent, 'charge');
    expect(alert?.team).toBeNull();
    expect(channels).not.toContain(growth.id);
    expect(channels).toHaveLength(1);
  });
});
