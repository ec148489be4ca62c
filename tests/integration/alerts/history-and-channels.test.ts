import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decide, type Actor } from '../../../packages/engine/src/core';
import { alertChannels, alertDeliveries, alertDeliveryAttempts } from '../../../packages/engine/src/db/schema';
import { getAlertHistory, listAlertChannels } from '../../../lib/queries/alerts';
import { useTestDatabase } from '../../support/test-database';
import { insertAlert } from '../../support/alerts';

const database = useTestDatabase();

type Person = Extract<Actor, { type: 'person' }>;
const person = (role: Person['role']): Person => ({ type: 'person', id: `${role}@example.com`, role, teams: [] });

/** What the Alerts page reads for `reader`: the detail exactly when they may manage alerts (app/(console)/alerts/page.tsx). */
async function readAs(reader: Person) {
  const detail = decide(reader, 'alerts.manage').allowed;
  return {
    history: await getAlertHistory(database.db, { detail }),
    channels: await listAlertChannels(database.db, { detail }),
  };
}

/** One channel failing, one alert, and a delivery whose tries came to each outcome there is. */
async function aDeliveryOfEveryOutcome() {
  const [channel] = await database.db
    .insert(alertChannels)
    .values({
      name: `channel-${randomUUID()}`,
      kind: 'webhook',
      url: 'https://hooks.example.com/x',
      urlHint: 'https://hooks.example.com/…',
      signingSecret: 'whsec_test',
      failingSince: new Date(),
      failingReason: 'gave up after 72 hours of retries; last: connect ECONNREFUSED 10.0.0.7:5432',
      createdBy: 'person:admin@example.com',
    })
    .returning();
  const instance = await insertAlert(database.db);
  const [delivery] = await database.db
    .insert(alertDeliveries)
    .values({
      instanceId: instance!.id,
      event: 'fired',
      channelId: channel!.id,
      status: 'failed',
      attempts: 6,
      lastError: 'connect ECONNREFUSED 10.0.0.7:5432',
    })
    .returning();
  // Oldest first: the log lists them newest first.
  const tries = [
    { statusCode: 204, error: null, durationMs: 3 },
    { statusCode: 401, error: null, durationMs: 7 },
    { statusCode: 503, error: null, durationMs: 11 },
    { statusCode: 302, error: null, durationMs: 5 },
    {
      statusCode: null,
      error: 'refused by policy: 10.0.0.7 is a private address',
      refusedByPolicy: true,
      durationMs: 1,
    },
    { statusCode: null, error: 'connect ECONNREFUSED 10.0.0.7:5432', durationMs: 2 },
  ];
  for (const each of tries)
    await database.db.insert(alertDeliveryAttempts).values({ deliveryId: delivery!.id, ...each });
  return { channel: channel!, instance: instance!, delivery: delivery! };
}

describe('what the History and Channels tabs show each role', () => {
  it('shows viewers and responders coarse outcomes only, and admins the error text, status and duration too', async () => {
    const { channel, instance, delivery } = await aDeliveryOfEveryOutcome();
    const outcomes = [
      'unreachable',
      'refused_by_policy',
      'refused_by_policy',
      'receiver_error',
      'refused_by_receiver',
      'delivered',
    ];

    for (const role of ['viewer', 'responder'] as const) {
      const { history, channels } = await readAs(person(role));
      const shown = history.instances.find((each) => each.id === instance.id)?.deliveries[0];
      expect(shown).toMatchObject({ id: delivery.id, status: 'failed', lastError: null, outcome: 'unreachable' });
      expect(shown?.attemptLog.map((attempt) => attempt.outcome)).toEqual(outcomes);
      for (const attempt of shown?.attemptLog ?? []) {
        expect(attempt).toMatchObject({ statusCode: null, error: null, durationMs: null });
      }
      const listed = channels.find((each) => each.id === channel.id);
      expect(listed).toMatchObject({ failingReason: null, lastDelivery: { lastError: null, outcome: 'unreachable' } });
      // Nothing that maps the network: no address, port or error code (status numbers are null above; as text
      // they could be part of a time or an event id).
      const text = JSON.stringify({ history, channels });
      for (const leak of ['ECONNREFUSED', '10.0.0.7', ':5432', 'private address', 'HTTP']) {
        expect(text, `${role} sees ${leak}`).not.toContain(leak);
      }
    }

    const { history, channels } = await readAs(person('admin'));
    const shown = history.instances.find((each) => each.id === instance.id)?.deliveries[0];
    expect(shown).toMatchObject({ lastError: 'connect ECONNREFUSED 10.0.0.7:5432', outcome: 'unreachable' });
    expect(shown?.attemptLog.map((attempt) => [attempt.outcome, attempt.statusCode, attempt.durationMs])).toEqual([
      ['unreachable', null, 2],
      ['refused_by_policy', null, 1],
      ['refused_by_policy', 302, 5],
      ['receiver_error', 503, 11],
      ['refused_by_receiver', 401, 7],
      ['delivered', 204, 3],
    ]);
    expect(shown?.attemptLog[1]?.error).toBe('refused by policy: 10.0.0.7 is a private address');
    expect(channels.find((each) => each.id === channel.id)?.failingReason).toContain('ECONNREFUSED');
  });
});
