import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deliverDueAlerts } from '../../../packages/engine/src/alerts/deliver';
import { createAlertChannel, sendTestAlert } from '../../../packages/engine/src/alerts/manage-channels';
import type { OutboundOptions, ResolvedAddress } from '../../../packages/engine/src/alerts/outbound-request';
import { createSigningSecret } from '../../../packages/engine/src/alerts/signature';
import { alertChannels, alertDeliveries, alertDeliveryAttempts } from '../../../packages/engine/src/db/schema';
import { useTestDatabase } from '../../support/test-database';
import { admin } from '../../support/actors';

const database = useTestDatabase();
const asAdmin = () => ({ db: database.db, actor: admin });
const publicUrl = 'https://holdfast.example.com';

/** A resolver stub: every name answers `addresses`; `calls` counts the lookups. Nothing asks a DNS server. */
function resolverOf(...addresses: string[]) {
  const stub = {
    calls: 0,
    answer: addresses.map((address): ResolvedAddress => ({ address, family: address.includes(':') ? 6 : 4 })),
    resolve: async (_hostname: string) => {
      stub.calls += 1;
      return stub.answer;
    },
  };
  return stub;
}

/** A real receiver on 127.0.0.1: what reaches it, by path; `answer` decides each status. */
const receiver = {
  server: undefined as http.Server | undefined,
  port: 0,
  received: [] as { path: string; host: string | undefined }[],
  answer: (_path: string): { status: number; location?: string } => ({ status: 204 }),
  of(path: string) {
    return receiver.received.filter((each) => each.path === path);
  },
};

beforeAll(async () => {
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const path = request.url ?? '';
      receiver.received.push({ path, host: request.headers.host });
      const { status, location } = receiver.answer(path);
      response.writeHead(status, location ? { Location: location } : {}).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.server = server;
  receiver.port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  receiver.server?.closeAllConnections();
  await new Promise((resolve) => receiver.server?.close(resolve));
});
// Each test sends to channels of its own.
beforeEach(async () => {
  await database.db.update(alertChannels).set({ enabled: false });
  receiver.answer = () => ({ status: 204 });
});

/** A channel as it is stored (saved before today's DNS answer, or before this rule). */
async function storedChannel(url: string) {
  const [channel] = await database.db
    .insert(alertChannels)
    .values({
      name: `channel-${randomUUID()}`,
      kind: 'webhook',
      url,
      urlHint: `${new URL(url).protocol}//${new URL(url).host}/…`,
      signingSecret: createSigningSecret(),
      createdBy: 'person:ada@example.com',
    })
    .returning();
  return channel!;
}

/** Queues a test notification to `channelId` and runs one delivery pass with `outbound`. */
async function sendTest(channelId: number, outbound: OutboundOptions) {
  const { deliveryId } = await sendTestAlert(asAdmin(), { channelId });
  await deliverDueAlerts({ db: database.db }, { publicUrl, outbound });
  const [delivery] = await database.db.select().from(alertDeliveries).where(eq(alertDeliveries.id, deliveryId));
  const attempts = await database.db
    .select()
    .from(alertDeliveryAttempts)
    .where(eq(alertDeliveryAttempts.deliveryId, deliveryId));
  return { delivery: delivery!, attempts };
}

const refusedOnUrl = (text: string) => ({
  code: 'INVALID_INPUT',
  fieldErrors: { url: [expect.stringContaining(text)] },
});

describe('saving a channel', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['fd00::1', 'unique-local'],
  ])('refuses a name resolving to %s (%s), writing nothing', async (address, what) => {
    const name = `inside-${randomUUID()}`;
    const dns = resolverOf(address);
    const attempt = createAlertChannel(
      asAdmin(),
      { name, kind: 'webhook', url: 'https://hooks.inside.example/x' },
      { outbound: { allowedHosts: '', resolve: dns.resolve } },
    );
    await expect(attempt).rejects.toMatchObject(refusedOnUrl(what));
    expect(dns.calls).toBe(1);
    expect(await database.db.select().from(alertChannels).where(eq(alertChannels.name, name))).toEqual([]);
  });

  it('refuses a name answering a public and a private address, and one that does not resolve', async () => {
    const mixed = resolverOf('93.184.215.14', '10.0.0.1');
    await expect(
      createAlertChannel(
        asAdmin(),
        { name: `mixed-${randomUUID()}`, kind: 'slack', url: 'https://hooks.inside.example/x' },
        { outbound: { allowedHosts: '', resolve: mixed.resolve } },
      ),
    ).rejects.toMatchObject(refusedOnUrl('10.0.0.1 is a private address'));
    const missing = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example'), { code: 'ENOTFOUND' });
    };
    await expect(
      createAlertChannel(
        asAdmin(),
        { name: `missing-${randomUUID()}`, kind: 'slack', url: 'https://nowhere.example/x' },
        { outbound: { allowedHosts: '', resolve: missing } },
      ),
    ).rejects.toMatchObject(refusedOnUrl('does not resolve (ENOTFOUND)'));
  });

  it.each([
    'https://169.254.169.254/latest/meta-data',
    'https://[::ffff:169.254.169.254]/x',
    'https://[::ffff:a9fe:a9fe]/x',
    'https://[::ffff:0:7f00:1]/x',
    'https://[::ffff:0:169.254.169.254]/x',
    'https://[64:ff9b::7f00:1]/x',
    'https://[2002:7f00:1::]/x',
    'https://0x7f000001/x',
    'https://2130706433/x',
    'https://0177.0.0.1/x',
    'https://0.0.0.0/x',
    'https://[::]/x',
    'https://[fd00::1]/x',
    'https://100.64.0.1/x',
    'https://224.0.0.1/x',
    'http://127.0.0.1:9/x',
    'http://[::1]:9/x',
    'http://localhost:9/x',
  ])('refuses %s without asking any resolver but the stub', async (url) => {
    const dns = resolverOf('127.0.0.1');
    await expect(
      createAlertChannel(
        asAdmin(),
        { name: `literal-${randomUUID()}`, kind: 'webhook', url },
        { outbound: { allowedHosts: '', resolve: dns.resolve } },
      ),
    ).rejects.toMatchObject(refusedOnUrl('must not point inside the network'));
  });

  it('accepts a public destination, and an internal one HOLDFAST_ALERT_ALLOWED_HOSTS allows (by range or by name)', async () => {
    const save = (url: string, outbound: OutboundOptions) =>
      createAlertChannel(asAdmin(), { name: `ok-${randomUUID()}`, kind: 'webhook', url }, { outbound });
    await expect(
      save('https://hooks.example.org/x', { allowedHosts: '', resolve: resolverOf('93.184.215.14').resolve }),
    ).resolves.toMatchObject({ channel: { urlHint: 'https://hooks.example.org/…' } });
    await expect(
      save('https://relay.inside.example/x', {
        allowedHosts: '10.20.0.0/16',
        resolve: resolverOf('10.20.3.4').resolve,
      }),
    ).resolves.toMatchObject({ channel: { kind: 'webhook' } });
    const never = resolverOf('10.0.0.1');
    await expect(
      save('https://relay.internal/x', { allowedHosts: 'relay.internal', resolve: never.resolve }),
    ).resolves.toBeTruthy();
    expect(never.calls).toBe(0);
  });
});

describe('sending to a channel', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
  ])(
    'refuses a name that resolves to %s at send: nothing is sent, the try is "refused by policy"',
    async (address, what) => {
      const channel = await storedChannel(`http://inside.example:${receiver.port}/hook-${randomUUID()}`);
      const { delivery, attempts } = await sendTest(channel.id, {
        allowedHosts: '',
        resolve: resolverOf(address).resolve,
      });
      expect(receiver.of(new URL(channel.url).pathname)).toEqual([]);
      expect(delivery).toMatchObject({ status: 'failed', attempts: 1, lastError: expect.stringContaining(what) });
      expect(attempts).toEqual([expect.objectContaining({ statusCode: null, refusedByPolicy: true })]);
      const [marked] = await database.db.select().from(alertChannels).where(eq(alertChannels.id, channel.id));
      expect(marked?.failingReason).toContain('refused by policy');
    },
  );

  it('refuses at send a name that was safe when it was saved and now resolves inside (DNS rebinding)', async () => {
    const path = `/rebound-${randomUUID()}`;
    const dns = resolverOf('93.184.215.14');
    const { channel } = await createAlertChannel(
      asAdmin(),
      { name: `rebound-${randomUUID()}`, kind: 'webhook', url: `https://rebinding.example:${receiver.port}${path}` },
      { outbound: { allowedHosts: '', resolve: dns.resolve } },
    );
    dns.answer = [{ address: '127.0.0.1', family: 4 }];
    const { delivery, attempts } = await sendTest(channel.id, { allowedHosts: '', resolve: dns.resolve });
    expect(dns.calls).toBe(2);
    expect(receiver.of(path)).toEqual([]);
    expect(delivery).toMatchObject({ status: 'failed', lastError: expect.stringContaining('loopback') });
    expect(attempts.map((attempt) => attempt.refusedByPolicy)).toEqual([true]);
  });

  it('delivers to a real loopback receiver HOLDFAST_ALERT_ALLOWED_HOSTS allows, by address and by a pinned name', async () => {
    const byAddress = await storedChannel(`http://127.0.0.1:${receiver.port}/allowed-${randomUUID()}`);
    const sent = await sendTest(byAddress.id, { allowedHosts: '127.0.0.1' });
    expect(sent.delivery).toMatchObject({ status: 'delivered' });
    expect(receiver.of(new URL(byAddress.url).pathname)).toHaveLength(1);

    // A name no DNS server knows: the delivery can only have reached the receiver through the vetted, pinned address.
    const byName = await storedChannel(`http://receiver.invalid:${receiver.port}/pinned-${randomUUID()}`);
    const dns = resolverOf('127.0.0.1');
    const pinned = await sendTest(byName.id, { allowedHosts: '127.0.0.0/8', resolve: dns.resolve });
    expect(pinned.delivery).toMatchObject({ status: 'delivered' });
    expect(dns.calls).toBe(1);
    expect(receiver.of(new URL(byName.url).pathname)).toEqual([
      { path: new URL(byName.url).pathname, host: `receiver.invalid:${receiver.port}` },
    ]);
  });

  it('does not follow a redirect, even to an allowed address: the try fails as refused by policy', async () => {
    const path = `/moved-${randomUUID()}`;
    receiver.answer = (each) =>
      each === path ? { status: 302, location: `http://127.0.0.1:${receiver.port}/elsewhere` } : { status: 204 };
    const channel = await storedChannel(`http://127.0.0.1:${receiver.port}${path}`);
    const { delivery, attempts } = await sendTest(channel.id, { allowedHosts: '127.0.0.1' });
    expect(receiver.of(path)).toHaveLength(1);
    expect(receiver.of('/elsewhere')).toEqual([]);
    expect(delivery).toMatchObject({
      status: 'failed',
      lastError: 'the receiver answered HTTP 302 (a redirect: not followed)',
    });
    expect(attempts).toEqual([expect.objectContaining({ statusCode: 302, refusedByPolicy: false })]);
  });
});
