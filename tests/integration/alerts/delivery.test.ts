import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deliverDueAlerts } from '../../../packages/engine/src/alerts/deliver';
import type { WebhookBody } from '../../../packages/engine/src/alerts/messages';
import { createSigningSecret, verifySignature } from '../../../packages/engine/src/alerts/signature';
import { ensureTaskBudget } from '../../../packages/engine/src/core/budgets/task-budget';
import { deadLetterTask } from '../../../packages/engine/src/core/dead-letters/dead-letter-task';
import { clearHold } from '../../../packages/engine/src/core/hold-clearing/clear-hold';
import { claimKey } from '../../../packages/engine/src/core/keys/claim-key';
import { acquireSlot } from '../../../packages/engine/src/core/slots/slot-lock';
import { connectDatabase } from '../../../packages/engine/src/db/client';
import {
  alertChannels,
  alertDeliveries,
  alertDeliveryAttempts,
  alertKinds,
  alertRules,
  budgetRefusalMinutes,
  leases,
  type AlertChannelKind,
} from '../../../packages/engine/src/db/schema';
import { getStepAnomalies } from '../../../lib/queries/anomalies';
import { runAlertPasses } from '../../../scripts/lib/sweep-loop';
import { addKnownOwners } from '../../support/known-owners';
import { useTestDatabase } from '../../support/test-database';
import { admin, anAgent, oncall } from '../../support/actors';
import { saveSpendBudget } from '../../../packages/engine/src/core/budgets/spend-budgets';
import { openTaskHold } from '../../support/task-holds';
import { recordRetryTraffic } from '../../support/retry-traffic';

const database = useTestDatabase();
// The owners its agents name are known (an unknown one would be given the default owner).
beforeAll(() => addKnownOwners(database.db, ['team:payments', 'team:growth']));
const ctx = () => ({ db: database.db });
const agent = anAgent('x');
const publicUrl = 'https://holdfast.example.com';
const start = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 30_000);
const hoursLater = (hours: number) => new Date(start.getTime() + hours * 3_600_000);

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  answered: number;
}

/** A real HTTP receiver on a free port; `answer` decides each response's status by path. */
const receiver = {
  server: undefined as http.Server | undefined,
  port: 0,
  received: [] as Received[],
  answer: (_path: string): number => 200,
  delayMs: 0,
  async listen(port = 0) {
    const server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const path = request.url ?? '';
        const answered = receiver.answer(path);
        receiver.received.push({
          path,
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          answered,
        });
        setTimeout(() => response.writeHead(answered).end(), receiver.delayMs);
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    receiver.server = server;
    receiver.port = (server.address() as AddressInfo).port;
  },
  async close() {
    const server = receiver.server;
    receiver.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  },
  /** What one channel's path received and answered 2xx to. */
  accepted(path: string) {
    return receiver.received.filter((each) => each.path === path && each.answered < 300);
  },
};

beforeAll(() => receiver.listen());
afterAll(() => receiver.close());
// Each test sends to channels of its own: the ones before it are switched off.
beforeEach(async () => {
  await database.db.update(alertChannels).set({ enabled: false });
  receiver.answer = () => 200;
  receiver.delayMs = 0;
});

async function addChannel(options: { kind?: AlertChannelKind; team?: string } = {}) {
  const path = `/hooks/${randomUUID()}`;
  const kind = options.kind ?? 'webhook';
  const [channel] = await database.db
    .insert(alertChannels)
    .values({
      name: `channel-${randomUUID()}`,
      kind,
      url: `http://127.0.0.1:${receiver.port}${path}`,
      urlHint: `http://127.0.0.1:${receiver.port}/…`,
      signingSecret: kind === 'webhook' ? createSigningSecret() : null,
      team: options.team,
      createdBy: 'person:admin@example.com',
    })
    .returning();
  return { ...channel!, path };
}

/** The receiver is on loopback: the operator's allow-list lets alerts reach it (the outbound rule stays on). */
const outbound = { allowedHosts: '127.0.0.1' };

/** One sweep tick's alert work (evaluation, then delivery) at `now`, as the sweep loop runs it. */
const tick = (now: Date) => runAlertPasses(ctx(), { now, publicUrl, outbound });

/**
 * `count` attempts of a step costing 100 each, `retries` of them retries, `hoursBack` before `start`. The retries
 * failed, so each one's cost is retry spend (a succeeded retry would add its first attempt's, none here).
 */
const attempts = (step: string, hoursBack: number, count: number, retries: number) =>
  recordRetryTraffic(database.db, { agent: 'fleet', step, now: start, hoursBack, count, retries });

/** One condition of every kind, holding at `start`. */
async function makeEveryKindHold() {
  for (let day = 1; day <= 7; day++) await attempts('jumpy', 24 + day * 24 - 12, 20, 1);
  await attempts('jumpy', 6, 20, 10);

  const paymentsHold = await openTaskHold(database.db, agent, 'team:payments');

  await database.db
    .update(alertRules)
    .set({ thresholds: { maxWaiting: 1, maxAgeMinutes: 60 } })
    .where(eq(alertRules.kind, 'dead_letters_waiting'));
  for (let index = 0; index < 2; index++) {
    const taskId = `mail-${randomUUID()}`;
    await ensureTaskBudget(database.db, { taskId, agent: 'mailer', queue: 'emails', owner: 'team:growth' });
    await deadLetterTask(database.db, agent, {
      taskId,
      agent: 'mailer',
      step: 'send',
      queue: 'emails',
      payload: { to: 'a@example.com' },
      reason: 'retry_ceiling',
      errorClass: 'transient',
      lastError: 'SMTP 451',
      attempts: 5,
      spendMicros: 0,
      owner: 'team:growth',
    });
  }

  // A spend budget at 80 % of its day's limit (its 50 and 80 % warnings reached: the alert names 80).
  await saveSpendBudget(
    { db: database.db, actor: admin },
    { name: 'mailer daily', scope: 'agent', scopeValue: 'mailer', period: 'day', limitUsd: 10, reason: 'test' },
  );
  await database.sql`
    insert into spend_budget_usage (budget_id, period_start, spent_micros)
    select id, date_trunc('day', ${start.toISOString()}::timestamptz, 'UTC'), 8000000
    from spend_budgets where name = 'mailer daily'`;

  const slot = `publish:site-${randomUUID().slice(0, 8)}:morning`;
  const lock = await acquireSlot(ctx(), { slot, runKey: `run-${randomUUID()}`, ttlMs: 60_000 });
  if (lock.outcome !== 'acquired') throw new Error('expected to acquire');
  await database.sql`update slot_locks set expires_at = ${hoursLater(-1).toISOString()} where slot = ${slot}`;

  // Named as it is stored: raw keys live under raw: (a claim of `x` is one of `raw:x`).
  const key = `raw:loose-${randomUUID()}/charge_card`;
  await claimKey(ctx(), {
    key,
    requestHash: 'h-1',
    holder: 'run-1',
    downstreamIdempotent: false,
    inProgressTtlMs: 60_000,
    step: 'charge_card',
  });
  await database.sql`update idempotency_keys set locked_until = ${hoursLater(-0.1).toISOString()} where key = ${key}`;

  await database.db.insert(budgetRefusalMinutes).values({
    minute: new Date(Math.floor(start.getTime() / 60_000) * 60_000),
    agent: 'fleet',
    step: 'draft',
    reason: 'retry_ceiling',
    refusals: 100,
  });

  // An agent's circuit breaker for a downstream that opened an hour ago.
  await database.sql`
    insert into circuit_breakers (target, scope, agent, downstream, state, opened_at, probe_at, failure_share, volume,
      changed_at)
    values ('downstream:fleet/smtp-relay', 'downstream', 'fleet', 'smtp-relay', 'open', ${hoursLater(-1).toISOString()},
      ${hoursLater(1).toISOString()}, 0.75, 40, ${hoursLater(-1).toISOString()})`;

  const lastPass = hoursLater(-2);
  await database.db.insert(leases).values(
    [3, 2].map((minutesBefore) => ({
      job: 'test_sweep',
      bucket: new Date(lastPass.getTime() - minutesBefore * 60_000).toISOString(),
      holder: 'old',
      acquiredAt: lastPass,
      expiresAt: lastPass,
      completedAt: lastPass,
    })),
  );
  return { slot, key, paymentsHold };
}

describe('alert delivery to a real receiver', () => {
  it('delivers every alert kind, signed, with an absolute deep link; a forged or stale copy fails verification', async () => {
    const channel = await addChannel();
    const { slot, key, paymentsHold } = await makeEveryKindHold();
    expect((await getStepAnomalies(database.db, start)).size).toBeGreaterThan(0); // the data has a step the console flags

    const passes = await tick(start);
    expect(passes.evaluation.ran).toBe(true);
    const got = receiver.accepted(channel.path);
    const bodies = got.map((each) => JSON.parse(each.body) as WebhookBody);
    expect(new Set(bodies.map((body) => body.kind))).toEqual(new Set(alertKinds));
    expect(bodies.map((body) => body.identity)).toEqual(
      expect.arrayContaining([
        'step:fleet/jumpy',
        'queue:emails',
        `lock:${slot}`,
        `key:${key}`,
        'step:fleet/draft',
        'sweep:test_sweep',
        'breaker:downstream:fleet/smtp-relay',
        expect.stringMatching(/^spend_budget:mailer daily:.*:80$/),
      ]),
    );
    expect(bodies.find((body) => body.kind === 'retry_share_anomaly')?.link).toBe(
      'https://holdfast.example.com/steps/fleet/jumpy',
    );
    expect(bodies.find((body) => body.kind === 'dead_letters_waiting')?.link).toBe(
      'https://holdfast.example.com/dead-letters?queue=emails',
    );
    expect(bodies.find((body) => body.kind === 'circuit_open')).toMatchObject({
      title: 'Circuit open on downstream smtp-relay (agent fleet) for 60 minutes',
      link: 'https://holdfast.example.com/pauses',
    });
    // The dead letters' own holds (team growth) fire too: pick the payments hold by its identity, not by order.
    expect(bodies.find((body) => body.identity === `hold:${paymentsHold.id}`)).toMatchObject({
      kind: 'hold_opened',
      team: 'payments',
      event: 'fired',
    });

    for (const each of got) {
      expect(each.headers['content-type']).toBe('application/json');
      expect(each.headers['user-agent']).toMatch(/^Holdfast/);
      expect(each.headers['holdfast-event-id']).toBe(JSON.parse(each.body).id);
      const header = String(each.headers['holdfast-signature']);
      expect(verifySignature(channel.signingSecret!, header, each.body, { now: start })).toMatchObject({ ok: true });
    }

    const sample = got[0]!;
    const header = String(sample.headers['holdfast-signature']);
    const forged = sample.body.replace('"fired"', '"resolved"');
    expect(verifySignature(channel.signingSecret!, header, forged, { now: start })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    expect(verifySignature(channel.signingSecret!, header, sample.body, { now: hoursLater(0.1) })).toEqual({
      ok: false,
      reason: 'stale',
    });
  });

  it('keeps every event while the receiver is down (503, then closed) and delivers each exactly once when it is back', async () => {
    const channel = await addChannel();
    const port = receiver.port;

    // One hold before each of the first ticks, half an hour apart: each is a notification of its own
    // (holds opened within 10 minutes of each other are coalesced: alerts-coalescing.test.ts).
    receiver.answer = () => 503;
    const holds = [await openTaskHold(database.db, agent, 'team:payments')];
    await tick(hoursLater(1));
    holds.push(await openTaskHold(database.db, agent, 'team:payments'));
    await tick(hoursLater(1.5));
    await clearHold({ db: database.db, actor: oncall }, { holdId: holds[0]!.id, resolution: 'discard', note: 'gone' });
    holds.push(await openTaskHold(database.db, agent, 'team:payments'));
    await receiver.close();
    await tick(hoursLater(2));
    await tick(hoursLater(3));
    await tick(hoursLater(4));
    expect(receiver.accepted(channel.path)).toEqual([]);

    await receiver.listen(port);
    receiver.answer = () => 200;
    for (let hour = 5; hour < 10; hour++) await tick(hoursLater(hour));

    const identities = holds.map((hold) => `hold:${hold.id}`);
    // Only this test's holds: conditions left holding by the tests before it stay firing, and go to no new channel.
    const got = receiver
      .accepted(channel.path)
      .map((each) => JSON.parse(each.body) as WebhookBody)
      .filter((body) => identities.includes(body.identity ?? ''));
    const perEvent = new Map<string, number>();
    for (const body of got) perEvent.set(body.id, (perEvent.get(body.id) ?? 0) + 1);
    expect([...perEvent.values()]).toEqual([1, 1, 1, 1]);
    expect(
      got
        .filter((body) => body.event === 'fired')
        .map((body) => body.identity)
        .sort(),
    ).toEqual([...identities].sort());
    expect(got.filter((body) => body.event === 'resolved').map((body) => body.identity)).toEqual([
      `hold:${holds[0]!.id}`,
    ]);
    // The resolution never overtakes its firing.
    const order = got.filter((body) => body.identity === `hold:${holds[0]!.id}`).map((body) => body.event);
    expect(order).toEqual(['fired', 'resolved']);

    const rows = await database.db.select().from(alertDeliveries).where(eq(alertDeliveries.channelId, channel.id));
    expect(rows.every((row) => row.status === 'delivered')).toBe(true);
    const tries = await database.db
      .select()
      .from(alertDeliveryAttempts)
      .where(
        inArray(
          alertDeliveryAttempts.deliveryId,
          rows.map((row) => row.id),
        ),
      );
    expect(tries.some((each) => each.statusCode === 503)).toBe(true);
    const networkErrors = tries.filter((each) => each.error !== null);
    expect(networkErrors.length).toBeGreaterThan(0);
    for (const each of networkErrors) expect(each.error).not.toContain(channel.path);
  });

  it('does not retry a 400, marks the channel failing with the status, and a later success clears the mark', async () => {
    const channel = await addChannel();
    receiver.answer = () => 400;
    const hold = await openTaskHold(database.db, agent, 'team:payments');
    await tick(hoursLater(10));
    for (let hour = 11; hour < 14; hour++) await tick(hoursLater(hour));
    expect(receiver.received.filter((each) => each.path === channel.path)).toHaveLength(1);
    const [row] = await database.db.select().from(alertDeliveries).where(eq(alertDeliveries.channelId, channel.id));
    expect(row).toMatchObject({ status: 'failed', attempts: 1, lastError: 'the receiver answered HTTP 400' });
    const [failing] = await database.db.select().from(alertChannels).where(eq(alertChannels.id, channel.id));
    expect(failing?.failingSince).toEqual(hoursLater(10));
    expect(failing?.failingReason).toContain('400');

    receiver.answer = () => 204;
    await clearHold({ db: database.db, actor: oncall }, { holdId: hold.id, resolution: 'discard', note: 'ok' });
    await tick(hoursLater(14));
    const [cleared] = await database.db.select().from(alertChannels).where(eq(alertChannels.id, channel.id));
    expect(cleared).toMatchObject({ failingSince: null, failingReason: null });
  });

  it("does not send a deleted or disabled channel's pending rows", async () => {
    const deleted = await addChannel();
    const disabled = await addChannel();
    receiver.answer = () => 503;
    await openTaskHold(database.db, agent, 'team:payments');
    await tick(hoursLater(20));
    expect(receiver.received.filter((each) => each.path === deleted.path)).toHaveLength(1);
    await database.db
      .update(alertChannels)
      .set({ deletedAt: hoursLater(20) })
      .where(eq(alertChannels.id, deleted.id));
    await database.db.update(alertChannels).set({ enabled: false }).where(eq(alertChannels.id, disabled.id));
    receiver.answer = () => 200;
    await tick(hoursLater(21));
    expect(receiver.accepted(deleted.path)).toEqual([]);
    expect(receiver.accepted(disabled.path)).toEqual([]);
    const rows = await database.db
      .select()
      .from(alertDeliveries)
      .where(inArray(alertDeliveries.channelId, [deleted.id, disabled.id]));
    expect(rows.map((row) => [row.status, row.lastError]).sort()).toEqual([
      ['failed', 'not sent: the channel was deleted'],
      ['failed', 'not sent: the channel was disabled'],
    ]);
  });

  it('sends Slack a Block Kit message whose user text cannot mention or link', async () => {
    const slack = await addChannel({ kind: 'slack' });
    await openTaskHold(database.db, agent, 'team:payments', 'Ping <@U123>, see <https://x|y> & approve');
    await tick(hoursLater(30));
    const [message] = receiver.accepted(slack.path);
    expect(message?.headers['holdfast-signature']).toBeUndefined();
    const body = JSON.parse(message!.body) as { text: string; blocks: { type: string; text?: { text: string } }[] };
    const section = body.blocks.find((block) => block.type === 'section');
    expect(section?.text?.text).toBe('Ping &lt;@U123&gt;, see &lt;https://x|y&gt; &amp; approve');
    expect(message!.body).not.toContain('<@U123>');
    expect(message!.body).not.toContain('<https://x|y>');
    expect(body.blocks.map((block) => block.type)).toEqual(['header', 'section', 'context', 'actions']);
  });

  it('two deliverers on separate connections never send one row twice', async () => {
    // One hold to thirty channels: thirty rows (thirty holds at once would be one coalesced notification).
    const channels = await Promise.all(Array.from({ length: 30 }, () => addChannel()));
    receiver.answer = () => 503;
    await openTaskHold(database.db, agent, 'team:payments');
    await tick(hoursLater(40));
    receiver.received = [];
    receiver.answer = () => 200;
    receiver.delayMs = 20;
    const connections = [connectDatabase(database.url), connectDatabase(database.url)];
    try {
      for (let round = 0; round < 3; round++) {
        await Promise.all(
          connections.map((connection) =>
            deliverDueAlerts({ db: connection.db }, { now: hoursLater(42), publicUrl, outbound, limit: 10 }),
          ),
        );
      }
    } finally {
      await Promise.all(connections.map((connection) => connection.close()));
    }
    const paths = new Set(channels.map((channel) => channel.path));
    const ids = receiver.received
      .filter((each) => paths.has(each.path))
      .map((each) => each.headers['holdfast-event-id']);
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
  });
});
