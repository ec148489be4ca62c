import { and, arrayOverlaps, eq, sql } from 'drizzle-orm';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { evaluateAlerts, runAlertSweep } from '../../../packages/engine/src/alerts/evaluate';
import { clearHold } from '../../../packages/engine/src/core/hold-clearing/clear-hold';
import { connectDatabase } from '../../../packages/engine/src/db/client';
import {
  alertDeliveries,
  alertInstances,
  alertRules,
  budgetRefusalMinutes,
} from '../../../packages/engine/src/db/schema';
import { addKnownOwners } from '../../support/known-owners';
import { useTestDatabase } from '../../support/test-database';
import { anAgent, oncall } from '../../support/actors';
import { insertWebhookChannel } from '../../support/alerts';
import { openTaskHold } from '../../support/task-holds';

const database = useTestDatabase();
// The owners its agents name are known (an unknown one would be given the default owner).
beforeAll(() => addKnownOwners(database.db, ['team:payments', 'team:records', 'person:lead@example.com']));
const ctx = () => ({ db: database.db });
const agent = anAgent('x');
// Each test an hour after the one before: one team's hold alerts are coalesced for 10 minutes (alerts-coalescing.test.ts).
let now = new Date();
beforeEach(() => {
  now = new Date(now.getTime() + 3_600_000);
});
const later = (minutes: number) => new Date(now.getTime() + minutes * 60_000);

async function addChannel(team?: string) {
  const channel = await insertWebhookChannel(database.db, { team });
  return channel!;
}

const instancesOf = (identity: string) =>
  database.db.select().from(alertInstances).where(eq(alertInstances.identity, identity)).orderBy(alertInstances.id);

async function outboxOf(identity: string) {
  return database.db
    .select({ event: alertDeliveries.event, channelId: alertDeliveries.channelId })
    .from(alertDeliveries)
    .innerJoin(alertInstances, eq(alertInstances.id, alertDeliveries.instanceId))
    .where(eq(alertInstances.identity, identity))
    .orderBy(alertDeliveries.channelId, alertDeliveries.event);
}

// Each test starts with no channels and only the hold rule on, so other kinds' conditions do not interfere.
beforeEach(async () => {
  await database.sql`update alert_channels set deleted_at = now() where deleted_at is null`;
  await database.db.update(alertRules).set({ enabled: sql`${alertRules.kind} = 'hold_opened'` });
});

describe('evaluateAlerts', () => {
  it('fires one instance once and resolves it once across many passes', async () => {
    const channel = await addChannel();
    const hold = await openTaskHold(database.db, agent, 'team:payments');
    const identity = `hold:${hold.id}`;

    for (let pass = 0; pass < 5; pass++) await evaluateAlerts(ctx(), { now: later(pass) });
    const [instance, ...others] = await instancesOf(identity);
    expect(others).toEqual([]);
    expect(instance).toMatchObject({
      kind: 'hold_opened',
      status: 'firing',
      team: 'payments',
      detail: 'approve the refund',
      link: '/holds?owner=team%3Apayments',
    });
    expect(await outboxOf(identity)).toEqual([{ event: 'fired', channelId: channel.id }]);

    await clearHold({ db: database.db, actor: oncall }, { holdId: hold.id, resolution: 'discard', note: 'done' });
    for (let pass = 5; pass < 10; pass++) await evaluateAlerts(ctx(), { now: later(pass) });
    const [resolved, ...none] = await instancesOf(identity);
    expect(none).toEqual([]);
    expect(resolved).toMatchObject({ status: 'resolved', resolvedAt: later(5) });
    expect(await outboxOf(identity)).toEqual([
      { event: 'fired', channelId: channel.id },
      { event: 'resolved', channelId: channel.id },
    ]);
  });

  it('two evaluators on separate connections fire and resolve one coalesced instance for 20 holds exactly once', async () => {
    const channels = [await addChannel(), await addChannel()];
    const holds = await Promise.all(
      Array.from({ length: 20 }, () => openTaskHold(database.db, agent, 'team:payments')),
    );
    const connections = [connectDatabase(database.url), connectDatabase(database.url)];
    try {
      const passBoth = (minute: number) =>
        Promise.all(connections.map((connection) => evaluateAlerts({ db: connection.db }, { now: later(minute) })));
      const firstPasses = [...(await passBoth(0)), ...(await passBoth(1))];
      expect(firstPasses.reduce((sum, pass) => sum + pass.fired, 0)).toBe(1);

      for (const hold of holds) {
        await clearHold({ db: database.db, actor: oncall }, { holdId: hold.id, resolution: 'resume', note: 'ok' });
      }
      const secondPasses = [...(await passBoth(2)), ...(await passBoth(3))];
      expect(secondPasses.reduce((sum, pass) => sum + pass.resolved, 0)).toBe(1);
    } finally {
      await Promise.all(connections.map((connection) => connection.close()));
    }

    const identities = holds.map((hold) => `hold:${hold.id}`).sort();
    const [counts] = await database.sql<{ instances: number; fired: number; resolved: number }[]>`
      select count(distinct i.id)::int as instances,
        count(*) filter (where d.event = 'fired')::int as fired,
        count(*) filter (where d.event = 'resolved')::int as resolved
      from alert_instances i left join alert_deliveries d on d.instance_id = i.id
      where i.identity = any(${identities}) or i.members && ${identities}::text[]`;
    expect(counts).toEqual({ instances: 1, fired: channels.length, resolved: channels.length });
    const [instance] = await database.db
      .select()
      .from(alertInstances)
      .where(arrayOverlaps(alertInstances.members, identities));
    expect([...(instance?.members ?? [])].sort()).toEqual(identities);
  });

  it('routes a team-owned hold to that team and to channels without a team; a person-owned one only to the latter', async () => {
    const payments = await addChannel('payments');
    const search = await addChannel('search');
    const everything = await addChannel();
    const teamHold = await openTaskHold(database.db, agent, 'team:payments');
    const personHold = await openTaskHold(database.db, agent, 'person:lead@example.com');
    await evaluateAlerts(ctx(), { now });

    const channelsOf = async (identity: string) => (await outboxOf(identity)).map((row) => row.channelId).sort();
    expect(await channelsOf(`hold:${teamHold.id}`)).toEqual([payments.id, everything.id].sort());
    expect(await channelsOf(`hold:${personHold.id}`)).toEqual([everything.id]);
    expect(await channelsOf(`hold:${teamHold.id}`)).not.toContain(search.id);
  });

  it('resolves the instances of a rule switched off and fires none while it is off', async () => {
    await addChannel();
    const hold = await openTaskHold(database.db, agent, 'team:payments');
    await evaluateAlerts(ctx(), { now });
    await database.db.update(alertRules).set({ enabled: false }).where(eq(alertRules.kind, 'hold_opened'));
    const off = await evaluateAlerts(ctx(), { now: later(1) });
    expect(off.resolved).toBeGreaterThanOrEqual(1);
    const another = await openTaskHold(database.db, agent, 'team:payments');
    await evaluateAlerts(ctx(), { now: later(2) });
    expect((await instancesOf(`hold:${hold.id}`)).map((instance) => instance.status)).toEqual(['resolved']);
    expect(await instancesOf(`hold:${another.id}`)).toEqual([]);
    // Cleared, so it joins no later test's coalesced hold alert.
    await clearHold({ db: database.db, actor: oncall }, { holdId: another.id, resolution: 'discard', note: 'done' });
  });

  it('runs once per minute under its lease, and trims refusal minutes after a day and resolved history after 30 days', async () => {
    const at = new Date('2026-11-30T10:00:30Z');
    expect((await runAlertSweep(ctx(), { now: at })).ran).toBe(true);
    expect((await runAlertSweep(ctx(), { now: new Date(at.getTime() + 20_000) })).ran).toBe(false);

    await database.db.insert(budgetRefusalMinutes).values([
      { minute: new Date(at.getTime() - 25 * 3_600_000), agent: 'a', step: 's', reason: 'retry_ceiling', refusals: 3 },
      { minute: new Date(at.getTime() - 60_000), agent: 'a', step: 's', reason: 'retry_ceiling', refusals: 3 },
    ]);
    await addChannel();
    // A team of its own: open holds the tests before left to team payments would share its coalesced alert.
    const hold = await openTaskHold(database.db, agent, 'team:records');
    await evaluateAlerts(ctx(), { now: at });
    await clearHold({ db: database.db, actor: oncall }, { holdId: hold.id, resolution: 'discard', note: 'old' });
    await evaluateAlerts(ctx(), { now: at });
    await database.sql`update alert_deliveries set status = 'delivered' where status = 'pending'`;
    await database.sql`
      insert into alert_delivery_attempts (delivery_id, status_code, duration_ms)
      select id, 204, 3 from alert_deliveries d
      where d.instance_id in (select id from alert_instances where identity = ${`hold:${hold.id}`})`;

    const sweep = await runAlertSweep(ctx(), { now: new Date(at.getTime() + 31 * 86_400_000) });
    expect(sweep.ran && sweep.value.trimmed).toMatchObject({ refusalMinutes: 2 });
    expect(sweep.ran && sweep.value.trimmed.instances).toBeGreaterThanOrEqual(1);
    expect(await instancesOf(`hold:${hold.id}`)).toEqual([]);
    const [left] = await database.sql<{ n: number }[]>`select count(*)::int as n from budget_refusal_minutes`;
    expect(left?.n).toBe(0);
    const stillFiring = await database.db
      .select()
      .from(alertInstances)
      .where(and(eq(alertInstances.status, 'firing'), eq(alertInstances.kind, 'hold_opened')));
    expect(stillFiring.length).toBeGreaterThan(0);
  });
});
