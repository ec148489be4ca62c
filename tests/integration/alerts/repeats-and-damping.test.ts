import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { evaluateAlerts } from '../../../packages/engine/src/alerts/evaluate';
import { QUIET_BEFORE_RESOLVE_MS } from '../../../packages/engine/src/alerts/flap-damping';
import { connectDatabase } from '../../../packages/engine/src/db/client';
import {
  alertDeliveries,
  alertInstances,
  alertRules,
  budgetRefusalMinutes,
} from '../../../packages/engine/src/db/schema';
import { useAlertHours } from '../../support/alerts';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();
const minute = 60_000;
const { at } = useAlertHours(database);

/**
 * A burst of budget refusals on a step of its own in minute `minutes`: the budget_refusals condition (more than
 * 10 a minute over five minutes) holds for that step from that minute for five minutes, then clears by itself.
 */
async function refusalBurst(step: string, minutes: number) {
  await database.db
    .insert(budgetRefusalMinutes)
    .values({ minute: at(minutes), agent: 'flapper', step, reason: 'retry_ceiling', refusals: 100 });
}

async function instancesOf(step: string) {
  return database.db
    .select()
    .from(alertInstances)
    .where(eq(alertInstances.identity, `step:flapper/${step}`))
    .orderBy(alertInstances.id);
}

const pass = (minutes: number, db = database.db) => evaluateAlerts({ db }, { now: at(minutes) });
const eventsOf = async (instanceId: number) =>
  (await database.db.select().from(alertDeliveries).where(eq(alertDeliveries.instanceId, instanceId)))
    .map((delivery) => delivery.event)
    .sort();

describe('a condition that comes and goes is one alert', () => {
  it('counts a return within the quiet time on the open alert, sends it once, and resolves after the quiet time', async () => {
    expect(QUIET_BEFORE_RESOLVE_MS).toBe(10 * minute);
    const step = `s-${randomUUID()}`;
    // Holds 0–4, clears at 5, back 7–11, back again 14–18, then clear for good from 19.
    for (const burst of [0, 7, 14]) await refusalBurst(step, burst);
    for (let minutes = 0; minutes <= 28; minutes++) await pass(minutes);

    const [alert, ...others] = await instancesOf(step);
    expect(others).toEqual([]);
    // Clear since 19 and not yet for the whole quiet time: still firing, and nothing but the one firing was sent.
    expect(alert).toMatchObject({
      status: 'firing',
      fireCount: 3,
      firedAt: at(0),
      lastSeenAt: at(18),
      clearedAt: at(19),
    });
    expect(await eventsOf(alert!.id)).toEqual(['fired']);

    await pass(29);
    const [resolved] = await instancesOf(step);
    expect(resolved).toMatchObject({ status: 'resolved', resolvedAt: at(29), fireCount: 3 });
    expect(await eventsOf(alert!.id)).toEqual(['fired', 'resolved']);
  });

  it('fires a new alert when the condition returns after staying clear for the whole quiet time', async () => {
    const step = `s-${randomUUID()}`;
    // Holds 0–4, clear 5–19 (resolved at 15), holds again from 20.
    for (const burst of [0, 20]) await refusalBurst(step, burst);
    for (let minutes = 0; minutes <= 21; minutes++) await pass(minutes);

    const [first, second, ...others] = await instancesOf(step);
    expect(others).toEqual([]);
    expect(first).toMatchObject({ status: 'resolved', fireCount: 1, clearedAt: at(5), resolvedAt: at(15) });
    expect(second).toMatchObject({ status: 'firing', fireCount: 1, firedAt: at(20), lastSeenAt: at(21) });
    expect(await eventsOf(first!.id)).toEqual(['fired', 'resolved']);
    expect(await eventsOf(second!.id)).toEqual(['fired']);
  });

  it('resolves at once, without the quiet time, when its rule is switched off', async () => {
    const step = `s-${randomUUID()}`;
    await refusalBurst(step, 0);
    await pass(0);
    await database.db.update(alertRules).set({ enabled: false }).where(eq(alertRules.kind, 'budget_refusals'));
    await pass(1);
    const [alert] = await instancesOf(step);
    expect(alert).toMatchObject({ status: 'resolved', resolvedAt: at(1), fireCount: 1 });
  });

  it('counts every return exactly once while two evaluators pass at the same moments on separate connections', async () => {
    const step = `s-${randomUUID()}`;
    // Five returns within the quiet time: bursts every 7 minutes hold 5 minutes and clear 2.
    const bursts = [0, 7, 14, 21, 28, 35];
    for (const burst of bursts) await refusalBurst(step, burst);
    const connections = [connectDatabase(database.url), connectDatabase(database.url)];
    try {
      let repeated = 0;
      let fired = 0;
      for (let minutes = 0; minutes <= 40; minutes++) {
        const passes = await Promise.all(connections.map((connection) => pass(minutes, connection.db)));
        repeated += passes.reduce((sum, each) => sum + each.repeated, 0);
        fired += passes.reduce((sum, each) => sum + each.fired, 0);
      }
      expect({ fired, repeated }).toEqual({ fired: 1, repeated: bursts.length - 1 });
    } finally {
      await Promise.all(connections.map((connection) => connection.close()));
    }
    const [alert, ...others] = await instancesOf(step);
    expect(others).toEqual([]);
    expect(alert).toMatchObject({ status: 'firing', fireCount: bursts.length, lastSeenAt: at(39), clearedAt: at(40) });
    expect(await eventsOf(alert!.id)).toEqual(['fired']);
  });
});
