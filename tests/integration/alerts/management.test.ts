import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  createAlertChannel,
  deleteAlertChannel,
  sendTestAlert,
  setAlertChannelEnabled,
} from '../../../packages/engine/src/alerts/manage-channels';
import { saveAlertRule } from '../../../packages/engine/src/alerts/manage-rules';
import type { Actor, CoreContext } from '../../../packages/engine/src/core';
import {
  alertChannels,
  alertDeliveries,
  alertDeliveryAttempts,
  alertRules,
  auditLog,
} from '../../../packages/engine/src/db/schema';
import { countFiringAlerts, getAlertHistory, listAlertChannels, listAlertRules } from '../../../lib/queries/alerts';
import { useTestDatabase } from '../../support/test-database';
import { insertAlert } from '../../support/alerts';

const database = useTestDatabase();

type Person = Extract<Actor, { type: 'person' }>;
const admin: Person = { type: 'person', id: 'ada@example.com', role: 'admin', teams: [] };
const responder: Person = { type: 'person', id: 'rex@example.com', role: 'responder', teams: [] };
const viewer: Person = { type: 'person', id: 'viv@example.com', role: 'viewer', teams: [] };
const as = (actor: Actor): CoreContext => ({ db: database.db, actor });

const SECRET_PATH = 'T000/B000/xoxb-secret-path';

/** Every name resolves to one public address, without asking a DNS server (alerts-outbound.test.ts tests the rule). */
const publicDns = { allowedHosts: '', resolve: async () => [{ address: '93.184.215.14', family: 4 as const }] };
const createChannel = (ctx: CoreContext, input: Parameters<typeof createAlertChannel>[1]) =>
  createAlertChannel(ctx, input, { outbound: publicDns });
const uniqueName = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;

async function auditOf(targetType: string, targetId: string) {
  return database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.targetType, targetType), eq(auditLog.targetId, targetId)))
    .orderBy(auditLog.id);
}

async function aChannel(overrides: { kind?: 'webhook' | 'slack'; team?: string } = {}) {
  return createChannel(as(admin), {
    name: uniqueName('channel'),
    kind: overrides.kind ?? 'webhook',
    url: `https://hooks.example.com/${SECRET_PATH}?token=abc`,
    team: overrides.team,
  });
}

/** Makes the audit insert of `action` fail, so a test can see the change roll back with it. */
async function failAuditOf(action: string) {
  await database.sql.unsafe(`
    create or replace function test_fail_audit() returns trigger language plpgsql as $$
    begin
      if new.action = '${action}' then raise exception 'audit refused by the test'; end if;
      return new;
    end $$;
    drop trigger if exists test_fail_audit on audit_log;
    create trigger test_fail_audit before insert on audit_log for each row execute function test_fail_audit();`);
  return () => database.sql.unsafe('drop trigger if exists test_fail_audit on audit_log');
}

describe('alert channels', () => {
  it('creates a webhook channel, returns its signing secret once, and lists it without URL or secret', async () => {
    const name = uniqueName('on-call');
    const created = await createChannel(as(admin), {
      name,
      kind: 'webhook',
      url: `https://hooks.example.com/${SECRET_PATH}`,
      team: 'payments',
    });
    expect(created.signingSecret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(created.channel).toMatchObject({
      name,
      kind: 'webhook',
      urlHint: 'https://hooks.example.com/…',
      team: 'payments',
      enabled: true,
      createdBy: 'person:ada@example.com',
    });
    expect(JSON.stringify(created.channel)).not.toContain(SECRET_PATH);
    expect(created.channel).not.toHaveProperty('url');
    expect(created.channel).not.toHaveProperty('signingSecret');

    // Stored, for the worker to sign with and send to.
    const [stored] = await database.db.select().from(alertChannels).where(eq(alertChannels.id, created.channel.id));
    expect(stored?.signingSecret).toBe(created.signingSecret);
    expect(stored?.url).toBe(`https://hooks.example.com/${SECRET_PATH}`);

    const listed = (await listAlertChannels(database.db)).find((channel) => channel.id === created.channel.id);
    expect(listed).toMatchObject({
      name,
      urlHint: 'https://hooks.example.com/…',
      team: 'payments',
      lastDelivery: null,
    });
    const text = JSON.stringify(await listAlertChannels(database.db));
    expect(text).not.toContain(SECRET_PATH);
    expect(text).not.toContain(created.signingSecret);
    expect(text).not.toContain('whsec_');

    const [record] = await auditOf('alert_channel', String(created.channel.id));
    expect(record).toMatchObject({ action: 'alert_channel.create', actorId: 'ada@example.com', before: null });
    expect(record?.after).toMatchObject({ name, urlHint: 'https://hooks.example.com/…', team: 'payments' });
    expect(JSON.stringify(record)).not.toContain(SECRET_PATH);
    expect(JSON.stringify(record)).not.toContain(created.signingSecret);
  });

  it('creates a Slack channel with no signing secret (its URL is the secret)', async () => {
    const created = await aChannel({ kind: 'slack' });
    expect(created.signingSecret).toBeNull();
    expect(created.channel.kind).toBe('slack');
  });

  it.each([
    ['http to a host that is not this machine', 'http://hooks.example.com/x', 'must be https'],
    ['credentials in the URL', 'https://user:pass@hooks.example.com/x', 'must not carry a user name or password'],
    ['ftp', 'ftp://hooks.example.com/x', 'must be https'],
    ['not a URL', 'hooks.example.com', 'must be a URL'],
  ])('refuses %s with a field error on url, writing nothing', async (_label, url, message) => {
    const name = uniqueName('bad');
    const attempt = createChannel(as(admin), { name, kind: 'webhook', url });
    await expect(attempt).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { url: [expect.stringContaining(message)] },
    });
    expect(await database.db.select().from(alertChannels).where(eq(alertChannels.name, name))).toEqual([]);
  });

  it('accepts plain http to loopback that HOLDFAST_ALERT_ALLOWED_HOSTS allows, and names every bad field at once', async () => {
    const local = await createAlertChannel(
      as(admin),
      { name: uniqueName('local'), kind: 'webhook', url: 'http://127.0.0.1:9000/hook' },
      { outbound: { allowedHosts: '127.0.0.1' } },
    );
    expect(local.channel.urlHint).toBe('http://127.0.0.1:9000/…');
    await expect(
      createChannel(as(admin), { name: '', kind: 'email' as 'webhook', url: 'ftp://x', team: 'Bad Team' }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: {
        name: expect.any(Array),
        kind: expect.any(Array),
        url: expect.any(Array),
        team: expect.any(Array),
      },
    });
  });

  it('refuses a second live channel of the same name, and allows the name again once that one is deleted', async () => {
    const first = await aChannel();
    await expect(
      createChannel(as(admin), { name: first.channel.name, kind: 'slack', url: 'https://hooks.slack.com/x' }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', fieldErrors: { name: [expect.stringContaining('exists')] } });
    await deleteAlertChannel(as(admin), { channelId: first.channel.id });
    const again = await createChannel(as(admin), {
      name: first.channel.name,
      kind: 'slack',
      url: 'https://hooks.slack.com/x',
    });
    expect(again.channel.name).toBe(first.channel.name);
  });

  it('queues one test delivery (event "test", no instance) per send, audited', async () => {
    const { channel } = await aChannel();
    const sent = await sendTestAlert(as(admin), { channelId: channel.id });
    const rows = await database.db.select().from(alertDeliveries).where(eq(alertDeliveries.channelId, channel.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id: sent.deliveryId,
      eventId: sent.eventId,
      event: 'test',
      instanceId: null,
      status: 'pending',
      attempts: 0,
    });
    const records = await auditOf('alert_channel', String(channel.id));
    expect(records.map((record) => record.action)).toEqual(['alert_channel.create', 'alert_channel.test']);
    expect(JSON.stringify(records)).not.toContain(SECRET_PATH);

    // The history lists it among the tests, and the channel's latest delivery is pending.
    const history = await getAlertHistory(database.db);
    expect(history.tests.find((test) => test.id === sent.deliveryId)).toMatchObject({
      channelName: channel.name,
      event: 'test',
      status: 'pending',
      attemptLog: [],
    });
    const listed = (await listAlertChannels(database.db)).find((row) => row.id === channel.id);
    expect(listed?.lastDelivery).toMatchObject({ status: 'pending', event: 'test' });
  });

  it('switches a channel off and on (audited, a repeat writes nothing) and refuses a test to a disabled one', async () => {
    const { channel } = await aChannel();
    expect(await setAlertChannelEnabled(as(admin), { channelId: channel.id, enabled: false })).toMatchObject({
      changed: true,
      channel: { enabled: false },
    });
    expect(await setAlertChannelEnabled(as(admin), { channelId: channel.id, enabled: false })).toMatchObject({
      changed: false,
    });
    await expect(sendTestAlert(as(admin), { channelId: channel.id })).rejects.toMatchObject({
      code: 'STATE_CONFLICT',
    });
    await setAlertChannelEnabled(as(admin), { channelId: channel.id, enabled: true });
    const records = await auditOf('alert_channel', String(channel.id));
    expect(records.map((record) => record.action)).toEqual([
      'alert_channel.create',
      'alert_channel.disable',
      'alert_channel.enable',
    ]);
    expect(records[1]).toMatchObject({ before: { enabled: true }, after: { enabled: false } });
  });

  it('deletes a channel softly, failing its pending deliveries "channel deleted" and leaving delivered ones', async () => {
    const { channel } = await aChannel();
    const pending = await sendTestAlert(as(admin), { channelId: channel.id });
    const [delivered] = await database.db
      .insert(alertDeliveries)
      .values({ event: 'test', channelId: channel.id, status: 'delivered', attempts: 1, deliveredAt: new Date() })
      .returning();

    expect(await deleteAlertChannel(as(admin), { channelId: channel.id, reason: 'team moved to Slack' })).toEqual({
      changed: true,
      failedDeliveries: 1,
    });
    const rows = await database.db.select().from(alertDeliveries).where(eq(alertDeliveries.channelId, channel.id));
    expect(rows.find((row) => row.id === pending.deliveryId)).toMatchObject({
      status: 'failed',
      lastError: 'channel deleted',
    });
    expect(rows.find((row) => row.id === delivered?.id)).toMatchObject({ status: 'delivered', lastError: null });

    const [stored] = await database.db.select().from(alertChannels).where(eq(alertChannels.id, channel.id));
    expect(stored?.deletedAt).toBeInstanceOf(Date);
    expect((await listAlertChannels(database.db)).map((row) => row.id)).not.toContain(channel.id);
    // A second delete changes nothing; a deleted channel cannot be tested or switched.
    expect(await deleteAlertChannel(as(admin), { channelId: channel.id })).toEqual({
      changed: false,
      failedDeliveries: 0,
    });
    await expect(sendTestAlert(as(admin), { channelId: channel.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(setAlertChannelEnabled(as(admin), { channelId: channel.id, enabled: true })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });

    const records = await auditOf('alert_channel', String(channel.id));
    expect(records.map((record) => [record.action, record.reason])).toEqual([
      ['alert_channel.create', null],
      ['alert_channel.test', null],
      ['alert_channel.delete', 'team moved to Slack'],
    ]);
    expect(records[2]?.after).toMatchObject({ deleted: true, pendingDeliveriesFailed: 1 });
    expect(JSON.stringify(records)).not.toContain(SECRET_PATH);
  });

  it('writes each change and its audit record in one transaction: a failed audit leaves nothing changed', async () => {
    const { channel } = await aChannel();
    const pending = await sendTestAlert(as(admin), { channelId: channel.id });

    let restore = await failAuditOf('alert_channel.delete');
    await expect(deleteAlertChannel(as(admin), { channelId: channel.id })).rejects.toThrow();
    await restore();
    const [still] = await database.db.select().from(alertChannels).where(eq(alertChannels.id, channel.id));
    expect(still?.deletedAt).toBeNull();
    const [delivery] = await database.db
      .select()
      .from(alertDeliveries)
      .where(eq(alertDeliveries.id, pending.deliveryId));
    expect(delivery?.status).toBe('pending');

    restore = await failAuditOf('alert_channel.test');
    await expect(sendTestAlert(as(admin), { channelId: channel.id })).rejects.toThrow();
    await restore();
    expect(
      await database.db.select().from(alertDeliveries).where(eq(alertDeliveries.channelId, channel.id)),
    ).toHaveLength(1);

    const name = uniqueName('atomic');
    restore = await failAuditOf('alert_channel.create');
    await expect(createChannel(as(admin), { name, kind: 'slack', url: 'https://hooks.slack.com/x' })).rejects.toThrow();
    await restore();
    expect(await database.db.select().from(alertChannels).where(eq(alertChannels.name, name))).toEqual([]);

    restore = await failAuditOf('alert_channel.disable');
    await expect(setAlertChannelEnabled(as(admin), { channelId: channel.id, enabled: false })).rejects.toThrow();
    await restore();
    const [enabled] = await database.db.select().from(alertChannels).where(eq(alertChannels.id, channel.id));
    expect(enabled?.enabled).toBe(true);

    restore = await failAuditOf('alert_rule.save');
    await expect(
      saveAlertRule(as(admin), { kind: 'stale_lock', enabled: true, thresholds: { unreleasableMinutes: 999 } }),
    ).rejects.toThrow();
    await restore();
    const [rule] = await database.db.select().from(alertRules).where(eq(alertRules.kind, 'stale_lock'));
    expect(rule?.thresholds).not.toEqual({ unreleasableMinutes: 999 });
  });
});

describe('alert rules', () => {
  it('saves a rule with before and after in the audit; the same values again write nothing', async () => {
    const [before] = await database.db.select().from(alertRules).where(eq(alertRules.kind, 'dead_letters_waiting'));
    expect(before?.thresholds).toEqual({ maxWaiting: 50, maxAgeMinutes: 60 });
    const saved = await saveAlertRule(as(admin), {
      kind: 'dead_letters_waiting',
      enabled: true,
      thresholds: { maxWaiting: 200, maxAgeMinutes: 30 },
      reason: 'the nightly import parks 100',
    });
    expect(saved).toMatchObject({
      changed: true,
      rule: { thresholds: { maxWaiting: 200, maxAgeMinutes: 30 }, updatedBy: 'person:ada@example.com' },
    });
    const again = await saveAlertRule(as(admin), {
      kind: 'dead_letters_waiting',
      enabled: true,
      thresholds: { maxAgeMinutes: 30, maxWaiting: 200 },
      reason: 'a double click',
    });
    expect(again).toEqual({ changed: false, rule: saved.rule });

    const records = await auditOf('alert_rule', 'dead_letters_waiting');
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      action: 'alert_rule.save',
      actorId: 'ada@example.com',
      reason: 'the nightly import parks 100',
      before: { kind: 'dead_letters_waiting', enabled: true, thresholds: { maxWaiting: 50, maxAgeMinutes: 60 } },
      after: { kind: 'dead_letters_waiting', enabled: true, thresholds: { maxWaiting: 200, maxAgeMinutes: 30 } },
    });

    // Switching it off is a change of its own.
    await saveAlertRule(as(admin), {
      kind: 'dead_letters_waiting',
      enabled: false,
      thresholds: { maxWaiting: 200, maxAgeMinutes: 30 },
    });
    const rules = await listAlertRules(database.db);
    expect(rules.map((rule) => rule.kind)).toEqual([
      'retry_share_anomaly',
      'hold_opened',
      'dead_letters_waiting',
      'stale_lock',
      'uncertain_key',
      'budget_refusals',
      'sweep_failing',
      'circuit_open',
      'spend_budget',
    ]);
    expect(rules.find((rule) => rule.kind === 'dead_letters_waiting')?.enabled).toBe(false);
  });

  it.each([
    ['dead_letters_waiting', { maxWaiting: 0, maxAgeMinutes: 60 }, 'thresholds.maxWaiting', 'must be at least 1'],
    ['dead_letters_waiting', { maxWaiting: 10 }, 'thresholds.maxAgeMinutes', ''],
    ['stale_lock', { unreleasableMinutes: 1.5 }, 'thresholds.unreleasableMinutes', 'must be whole minutes'],
    ['budget_refusals', { perMinute: 0 }, 'thresholds.perMinute', 'must be above 0'],
    ['sweep_failing', { staleMinutes: 15, extra: 1 }, 'thresholds', ''],
    ['hold_opened', { perMinute: 1 }, 'thresholds', ''],
  ] as const)('validates %s thresholds %j per kind (%s)', async (kind, thresholds, field, message) => {
    const [before] = await database.db.select().from(alertRules).where(eq(alertRules.kind, kind));
    await expect(
      saveAlertRule(as(admin), { kind, enabled: true, thresholds: thresholds as Record<string, number> }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { [field]: [expect.stringContaining(message)] },
    });
    const [after] = await database.db.select().from(alertRules).where(eq(alertRules.kind, kind));
    expect(after).toEqual(before);
  });

  it('refuses an unknown kind', async () => {
    await expect(
      saveAlertRule(as(admin), { kind: 'nope' as 'stale_lock', enabled: true, thresholds: {} }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', fieldErrors: { kind: expect.any(Array) } });
  });
});

describe('who may manage alerts', () => {
  for (const person of [viewer, responder]) {
    it(`refuses a ${person.role} every change with FORBIDDEN, writing nothing`, async () => {
      const { channel } = await aChannel();
      const auditBefore = await database.db.select({ n: sql<number>`count(*)::int` }).from(auditLog);
      const attempts = [
        saveAlertRule(as(person), { kind: 'stale_lock', enabled: false, thresholds: { unreleasableMinutes: 5 } }),
        createChannel(as(person), { name: uniqueName('nope'), kind: 'slack', url: 'https://hooks.slack.com/x' }),
        deleteAlertChannel(as(person), { channelId: channel.id }),
        setAlertChannelEnabled(as(person), { channelId: channel.id, enabled: false }),
        sendTestAlert(as(person), { channelId: channel.id }),
      ];
      for (const attempt of attempts) await expect(attempt).rejects.toMatchObject({ code: 'FORBIDDEN' });
      const auditAfter = await database.db.select({ n: sql<number>`count(*)::int` }).from(auditLog);
      expect(auditAfter).toEqual(auditBefore);
      const [stored] = await database.db.select().from(alertChannels).where(eq(alertChannels.id, channel.id));
      expect(stored).toMatchObject({ enabled: true, deletedAt: null });
      expect(await database.db.select().from(alertDeliveries).where(eq(alertDeliveries.channelId, channel.id))).toEqual(
        [],
      );
    });
  }

  it('checks the role before the input: a viewer learns nothing about which input would be valid', async () => {
    await expect(createChannel(as(viewer), { name: '', kind: 'webhook', url: 'ftp://x' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
  });
});

describe('alert history', () => {
  it('lists instances newest first with their deliveries and tries, and counts those firing', async () => {
    const { channel } = await aChannel();
    const firingBefore = await countFiringAlerts(database.db);
    const older = await insertAlert(database.db, {
      kind: 'hold_opened',
      identity: `hold:${randomUUID()}`,
      title: 'Hold opened',
      detail: 'needs approval',
      link: '/holds?owner=team%3Apayments',
      team: 'payments',
      status: 'resolved',
      firedAt: new Date(Date.now() - 60_000),
      resolvedAt: new Date(),
    });
    const newer = await insertAlert(database.db);
    const [delivery] = await database.db
      .insert(alertDeliveries)
      .values({
        instanceId: newer!.id,
        event: 'fired',
        channelId: channel.id,
        status: 'failed',
        attempts: 2,
        lastError: 'HTTP 410 Gone',
      })
      .returning();
    await database.db.insert(alertDeliveryAttempts).values([
      { deliveryId: delivery!.id, statusCode: 503, error: 'HTTP 503', durationMs: 12 },
      { deliveryId: delivery!.id, statusCode: 410, error: 'HTTP 410 Gone', durationMs: 9 },
    ]);

    // An admin's view (detail): alerts-history-detail.test.ts shows what everyone else sees.
    const history = await getAlertHistory(database.db, { limit: 1, detail: true });
    expect(history.totalInstances).toBeGreaterThanOrEqual(2);
    expect(history.instances).toHaveLength(1);
    expect(history.instances[0]).toMatchObject({ id: newer!.id, status: 'firing', link: '/locks' });
    expect(history.instances[0]?.deliveries).toEqual([
      expect.objectContaining({
        channelName: channel.name,
        event: 'fired',
        status: 'failed',
        attempts: 2,
        lastError: 'HTTP 410 Gone',
        attemptLog: [
          expect.objectContaining({ statusCode: 410, error: 'HTTP 410 Gone' }),
          expect.objectContaining({ statusCode: 503 }),
        ],
      }),
    ]);
    const all = await getAlertHistory(database.db);
    expect(all.instances.findIndex((row) => row.id === newer!.id)).toBeLessThan(
      all.instances.findIndex((row) => row.id === older!.id),
    );
    expect(all.instances.find((row) => row.id === older!.id)).toMatchObject({ team: 'payments', deliveries: [] });
    expect(await countFiringAlerts(database.db)).toBe(firingBefore + 1);
  });
});
