import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { COALESCE_WINDOW_MS } from '../../../packages/engine/src/alerts/hold-digests';
import type { WebhookBody } from '../../../packages/engine/src/alerts/messages';
import { createSigningSecret } from '../../../packages/engine/src/alerts/signature';
import { ensureTaskBudget } from '../../../packages/engine/src/core/budgets/task-budget';
import { openHold } from '../../../packages/engine/src/core/holds/open-hold';
import { clearHold } from '../../../packages/engine/src/core/hold-clearing/clear-hold';
import { alertChannels, alertRules } from '../../../packages/engine/src/db/schema';
import { runAlertPasses } from '../../../scripts/lib/sweep-loop';
import { addKnownOwners } from '../../support/known-owners';
import { useTestDatabase } from '../../support/test-database';
import { anAgent, oncall } from '../../support/actors';

const database = useTestDatabase();
// The owners the agent names are known (an unknown one would be given the default owner).
beforeAll(() => addKnownOwners(database.db, ['team:payments', 'person:lead@example.com']));
const agent = anAgent('flooding-agent');
const minute = 60_000;

/** A real receiver on loopback, allowed by the list: every body it accepted. */
const receiver = { server: undefined as http.Server | undefined, port: 0, bodies: [] as WebhookBody[] };
beforeAll(async () => {
  receiver.server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receiver.bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as WebhookBody);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.server!.listen(0, '127.0.0.1', resolve));
  receiver.port = (receiver.server.address() as AddressInfo).port;
});
afterAll(async () => {
  receiver.server?.closeAllConnections();
  await new Promise((resolve) => receiver.server?.close(resolve));
});

// Each test: one fresh channel, only the hold rule on, its own hour (holds left open before are announced already).
let start = new Date(Math.floor(Date.now() / minute) * minute + 30_000);
beforeEach(async () => {
  await database.db.update(alertChannels).set({ enabled: false });
  await database.db.update(alertRules).set({ enabled: sql`${alertRules.kind} = 'hold_opened'` });
  start = new Date(start.getTime() + 3_600_000);
  receiver.bodies = [];
  await database.db.insert(alertChannels).values({
    name: `channel-${randomUUID()}`,
    kind: 'webhook',
    url: `http://127.0.0.1:${receiver.port}/hook`,
    urlHint: `http://127.0.0.1:${receiver.port}/…`,
    signingSecret: createSigningSecret(),
    createdBy: 'person:admin@example.com',
  });
});

const at = (minutes: number) => new Date(start.getTime() + minutes * minute);
const tick = (minutes: number) =>
  runAlertPasses(
    { db: database.db },
    { now: at(minutes), publicUrl: 'https://holdfast.example.com', outbound: { allowedHosts: '127.0.0.1' } },
  );

/** A hold the flooding agent opens on a task of its own, for `owner`. */
async function openAgentHold(owner = 'team:payments') {
  const taskId = `task-${randomUUID()}`;
  await ensureTaskBudget(database.db, { taskId, agent: 'flooder', owner });
  const { hold } = await openHold(
    { db: database.db, actor: agent },
    { itemType: 'task', itemId: taskId, reason: 'needs_approval', detail: 'look at me', owner },
  );
  return hold;
}

const fired = () => receiver.bodies.filter((body) => body.event === 'fired');

describe('hold alerts are coalesced per team and 10 minutes', () => {
  it('sends one notification, counting them all, for 40 holds one agent opens within 10 minutes', async () => {
    expect(COALESCE_WINDOW_MS).toBe(10 * minute);
    const holds = [];
    for (let index = 0; index < 40; index++) holds.push(await openAgentHold());
    for (let minutes = 0; minutes < 10; minutes++) await tick(minutes);

    expect(fired()).toHaveLength(1);
    expect(fired()[0]).toMatchObject({
      kind: 'hold_opened',
      team: 'payments',
      count: 40,
      identity: `hold:${holds[0]!.id}`,
      title: '40 holds opened for team:payments',
      link: 'https://holdfast.example.com/holds?owner=team%3Apayments',
    });

    // Resolved once, when the last of the 40 is cleared.
    for (const hold of holds.slice(0, 39)) {
      await clearHold({ db: database.db, actor: oncall }, { holdId: hold.id, resolution: 'discard', note: 'spam' });
    }
    await tick(11);
    expect(receiver.bodies.filter((body) => body.event === 'resolved')).toEqual([]);
    await clearHold({ db: database.db, actor: oncall }, { holdId: holds[39]!.id, resolution: 'discard', note: 'spam' });
    await tick(12);
    expect(receiver.bodies.filter((body) => body.event === 'resolved')).toEqual([
      expect.objectContaining({ identity: `hold:${holds[0]!.id}`, count: 40 }),
    ]);
  });

  it('announces the first hold at once and those opened within the window together, once it has passed', async () => {
    const first = await openAgentHold();
    await tick(0);
    expect(fired().map((body) => [body.identity, body.count])).toEqual([[`hold:${first.id}`, 1]]);

    const later = [];
    for (let minutes = 1; minutes <= 5; minutes++) {
      later.push(await openAgentHold());
      await tick(minutes);
    }
    await tick(9);
    expect(fired()).toHaveLength(1);

    await tick(10);
    expect(fired().map((body) => [body.identity, body.count])).toEqual([
      [`hold:${first.id}`, 1],
      [`hold:${later[0]!.id}`, 5],
    ]);
    for (let minutes = 11; minutes < 30; minutes++) await tick(minutes);
    expect(fired()).toHaveLength(2);
  });

  it('keeps teams apart: holds for two teams at once are two notifications', async () => {
    for (let index = 0; index < 3; index++) await openAgentHold('team:payments');
    for (let index = 0; index < 2; index++) await openAgentHold('person:lead@example.com');
    await tick(0);
    await tick(1);
    expect(
      fired()
        .map((body) => [body.team, body.count])
        .sort(),
    ).toEqual([
      [null, 2],
      ['payments', 3],
    ]);
  });
});
