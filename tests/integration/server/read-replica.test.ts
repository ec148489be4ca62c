import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumArgs, chromiumExecutablePath } from '../../../e2e/support/browser';
import { createApiToken, ensureTaskBudget, openHold, recordAttempt } from '../../../packages/engine/src/core';
import { connectDatabase, type DatabaseConnection } from '../../../packages/engine/src/db/client';
import { APP_ROLE, OWNER_ROLE, prepareDatabaseRoles, urlForRole } from '../../../packages/engine/src/db/database-roles';
import { migrateDatabase } from '../../../packages/engine/src/db/migrate';
import { generateRolePasswords } from '../../../packages/engine/src/db/role-passwords';
import { getConsoleOverview } from '../../../lib/console/overview';
import { getStepStatsView } from '../../../lib/queries/step-stats';
import { decodeReadSource, READ_SOURCE_HEADER } from '../../../lib/server/read-source/notice';
import { parseLsn } from '../../../lib/server/read-source/replica';
import { ensureProductionBuild } from '../../../scripts/lib/production-build';
import { startHoldfastServer, type HoldfastServer } from '../../support/holdfast-server';
import { type Cluster, createReplicaPair, replicaUnavailableReason } from '../../support/replica-cluster';
import { anAttempt } from '../../support/attempt-factory';
import { aPerson, anAgent } from '../../support/actors';

/**
 * A real streaming replica (Debian's PostgreSQL 15: initdb, pg_basebackup -R,
 * a standby on its own port) under a production server started with
 * DATABASE_READ_URL. Replay is paused and resumed on the standby to make it
 * lag on purpose; every wait polls for its condition under a deadline.
 */
const unavailable = replicaUnavailableReason();
if (unavailable) console.log(`Skipping the read-replica tests: ${unavailable}`);

const projectRoot = path.resolve(import.meta.dirname, '../../..');
const proxySecret = randomBytes(24).toString('hex');
const agent = anAgent('replica-test');
const admin = aPerson('admin', 'replica-admin@holdfast.local');
/** What an SSO proxy in front of Holdfast sends with an admin's request. */
const adminHeaders = {
  'x-holdfast-proxy-secret': proxySecret,
  'x-forwarded-email': 'replica-admin@holdfast.local',
  'x-forwarded-groups': 'replica-admins',
};

let pair: Awaited<ReturnType<typeof createReplicaPair>> | undefined;
let replicaCluster: Cluster;
/** As the owner role on the primary (writes through packages/engine/src/core), and as the superuser on each cluster. */
let primary: DatabaseConnection;
let primaryAdmin: DatabaseConnection;
let replica: DatabaseConnection;
/** The replica's lag limit is an hour here: it never falls back for lag alone. */
let lenient: HoldfastServer;
/** The same, with a lag limit of 2 s. */
let strict: HoldfastServer;
const servers: HoldfastServer[] = [];

async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Waited ${timeoutMs} ms for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Runs `checks` until they pass, up to a deadline; the last failure is the test's. */
async function eventually(checks: () => Promise<void>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await checks();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

interface Page {
  status: number;
  html: string;
}

async function get(server: HoldfastServer, pathname: string, cookie?: string): Promise<Page> {
  const response = await fetch(`${server.baseUrl}${pathname}`, {
    headers: { ...adminHeaders, ...(cookie ? { cookie } : {}) },
    redirect: 'manual',
  });
  return { status: response.status, html: await response.text() };
}

/** The Overview's JSON (what its figures poll) and where the server read it. */
async function overviewJson(server: HoldfastServer) {
  const response = await fetch(`${server.baseUrl}/api/console/overview?window=24h`, { headers: adminHeaders });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { headline: { openHolds: { now: number } } };
  return { body, source: decodeReadSource(response.headers.get(READ_SOURCE_HEADER)) };
}

/** The open-holds figure on the Overview's page as rendered. */
function openHoldsShown(html: string): number {
  const match = /data-testid="headline-openHolds"[\s\S]*?data-testid="value"[^>]*>([^<]+)</.exec(html);
  if (!match?.[1]) throw new Error('No open-holds figure on the Overview');
  return Number(match[1].replaceAll(',', ''));
}

/** The read-source notice on a page, if any: its kind and text. */
function noticeOn(html: string): { kind: string; text: string } | undefined {
  const match = /data-testid="read-source-notice" data-kind="(\w+)"[^>]*>([^<]*)</.exec(html);
  return match ? { kind: match[1]!, text: match[2]! } : undefined;
}

async function openHolds(connection: DatabaseConnection): Promise<number> {
  const [row] = await connection.sql<{ open: number }[]>`select count(*)::int as open from holds where status = 'open'`;
  return row!.open;
}

async function openAHold(): Promise<string> {
  const itemId = `replica-task-${randomUUID()}`;
  // A hold parks something that exists: the task first.
  await ensureTaskBudget(primary.db, { taskId: itemId, agent: agent.id, owner: 'team:platform' });
  await openHold(
    { db: primary.db, actor: agent },
    { itemType: 'task', itemId, reason: 'frozen', detail: 'Parked by the replica test', owner: 'team:platform' },
  );
  return itemId;
}

async function primaryLsn(): Promise<string> {
  const [row] = await primaryAdmin.sql<{ lsn: string }[]>`select pg_current_wal_lsn()::text as lsn`;
  return row!.lsn;
}

/** Resumes replay and waits until the replica has replayed everything the primary wrote so far. */
async function resumeAndCatchUp(): Promise<void> {
  await replica.sql`select pg_wal_replay_resume()`;
  const target = parseLsn(await primaryLsn())!;
  await waitFor('the replica to catch up', async () => {
    const [row] = await replica.sql<{ lsn: string }[]>`select pg_last_wal_replay_lsn()::text as lsn`;
    return parseLsn(row!.lsn)! >= target;
  });
}

async function pauseReplay(): Promise<void> {
  await replica.sql`select pg_wal_replay_pause()`;
  await waitFor('replay to pause', async () => {
    const [row] = await replica.sql<{ state: string }[]>`select pg_get_wal_replay_pause_state() as state`;
    return row!.state === 'paused';
  });
}

describe.skipIf(unavailable)('console reads from a streaming replica', () => {
  beforeAll(async () => {
    pair = await createReplicaPair();
    try {
      const primaryCluster = await pair.startPrimary();
      primaryAdmin = connectDatabase(primaryCluster.urlFor('postgres'), { maxConnections: 2 });
      await primaryAdmin.sql`create database holdfast`;
      const superuserUrl = primaryCluster.urlFor('holdfast');
      const passwords = generateRolePasswords();
      await prepareDatabaseRoles({ superuserUrl, passwords, appMayCreateSchemas: true });
      const ownerUrl = urlForRole(superuserUrl, OWNER_ROLE, passwords.owner);
      await migrateDatabase(ownerUrl);
      primary = connectDatabase(ownerUrl, { maxConnections: 4 });

      replicaCluster = await pair.startReplica(primaryCluster);
      const replicaUrl = replicaCluster.urlFor('holdfast');
      replica = connectDatabase(replicaUrl, { maxConnections: 2 });

      ensureProductionBuild(projectRoot, (line) => console.log(line));
      const env = (maxLagSeconds: number) => ({
        DATABASE_URL: urlForRole(superuserUrl, APP_ROLE, passwords.app),
        DATABASE_MIGRATION_URL: ownerUrl,
        DATABASE_READ_URL: urlForRole(replicaUrl, APP_ROLE, passwords.app),
        HOLDFAST_READ_MAX_LAG_SECONDS: String(maxLagSeconds),
        AUTH_MODE: 'proxy',
        AUTH_PROXY_SECRET: proxySecret,
        AUTH_PROXY_ROLE_MAP: 'replica-admins=admin',
        SESSION_SECRET: randomBytes(32).toString('hex'),
      });
      const starting = [3_600, 2].map((limit) => startHoldfastServer({ env: env(limit) }));
      for (const result of await Promise.allSettled(starting))
        if (result.status === 'fulfilled') servers.push(result.value);
      [lenient, strict] = (await Promise.all(starting)) as [HoldfastServer, HoldfastServer];
      // The proxy's person is made on first sight; then the replica has every row so far.
      expect((await get(lenient, '/')).status).toBe(200);
      await resumeAndCatchUp();
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${await pair.logs()}`);
    }
  }, 600_000);

  afterAll(async () => {
    await Promise.allSettled(servers.map((server) => server.stop()));
    await Promise.allSettled([primary, primaryAdmin, replica].map((connection) => connection?.close()));
    await pair?.destroy();
  }, 120_000);

  it('reads the console from the replica: a hold opened while replay is paused shows only once it is replayed', async () => {
    await pauseReplay();
    const before = await openHolds(replica);
    const itemId = await openAHold();
    expect(await openHolds(primary)).toBe(before + 1);
    expect(await openHolds(replica)).toBe(before);

    // A replica sample that misses its deadline (a loaded machine) sends a page to the primary for a while,
    // as it should: the checks are of the pages read from the replica, so they are made again until they are.
    await eventually(async () => {
      const figures = await overviewJson(lenient);
      expect(figures.source).toMatchObject({ from: 'replica' });
      expect(figures.body.headline.openHolds.now).toBe(before);
      const overview = await get(lenient, '/');
      expect(overview.status).toBe(200);
      expect(openHoldsShown(overview.html)).toBe(before);
      const holds = await get(lenient, '/holds');
      expect(holds.status).toBe(200);
      expect(holds.html).not.toContain(itemId);
    });

    // Read your own writes: a browser whose action wrote at this position reads from the primary meanwhile.
    const afterOwnWrite = await get(lenient, '/holds', `holdfast-own-write=${await primaryLsn()}`);
    expect(afterOwnWrite.html).toContain(itemId);

    await resumeAndCatchUp();
    await waitFor('the hold on the Holds page', async () => (await get(lenient, '/holds')).html.includes(itemId));
    await eventually(async () => {
      const caughtUp = await overviewJson(lenient);
      expect(caughtUp.source).toMatchObject({ from: 'replica' });
      expect(caughtUp.body.headline.openHolds.now).toBe(before + 1);
    });
  });

  it('keeps actions on the primary: an agent call authenticated by a token written while replay is paused, and one reading the row it wrote', async () => {
    await pauseReplay();
    const { token } = await createApiToken(
      { db: primary.db, actor: admin },
      { name: 'replica agent', scopes: ['ingest'] },
    );
    // Named as stored (raw: prefix): the test reads the row by its stored name on both servers.
    const key = `raw:replica-key-${randomUUID()}`;
    const call = (pathname: string, body: unknown) =>
      fetch(`${lenient.baseUrl}${pathname}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    const claimed = await call('/api/v1/keys/claim', { key, requestHash: 'h1' });
    const claim = (await claimed.json()) as { fencingToken: number };
    expect(claimed.status, JSON.stringify(claim)).toBeLessThan(300);
    const keyStatus = async (connection: DatabaseConnection) =>
      (await connection.sql<{ status: string }[]>`select status from idempotency_keys where key = ${key}`)[0]?.status;
    expect(await keyStatus(primary)).toBe('in_progress');
    expect(await keyStatus(replica)).toBeUndefined();

    // Completing reads the claim it finds on the primary; the replica has not seen it.
    const completed = await call('/api/v1/keys/complete', { key, fencingToken: claim.fencingToken, result: { ok: 1 } });
    expect(completed.status, await completed.clone().text()).toBeLessThan(300);
    expect(await keyStatus(primary)).toBe('completed');
    expect(await keyStatus(replica)).toBeUndefined();

    await resumeAndCatchUp();
    expect(await keyStatus(replica)).toBe('completed');
  });

  it('says how far behind the figures are, and past the limit reads the primary and says so', async () => {
    await pauseReplay();
    const replicaCount = await openHolds(replica);
    // The primary keeps writing while the replica stands still.
    await openAHold();
    const lagging = await waitFor(
      'the lag notice on the Overview',
      async () => {
        const page = await get(lenient, '/');
        expect(page.status).toBe(200);
        const notice = noticeOn(page.html);
        return notice?.kind === 'lag' ? { page, notice } : undefined;
      },
      20_000,
    );
    expect(lagging.notice.text).toMatch(/^Figures as of \d+ s ago: read from a replica/);
    expect(openHoldsShown(lagging.page.html)).toBe(replicaCount);

    await openAHold();
    const primaryCount = await openHolds(primary);
    expect(primaryCount).toBe(replicaCount + 2);
    const fellBack = await waitFor(
      'the fallback notice on the Overview of the 2 s limit',
      async () => {
        const page = await get(strict, '/');
        expect(page.status).toBe(200);
        const notice = noticeOn(page.html);
        // Not "not answering": the first sample of a cold pool on a busy machine may miss its deadline.
        return notice?.kind === 'fallback' && / s behind /.test(notice.text) ? { page, notice } : undefined;
      },
      20_000,
    );
    expect(fellBack.notice.kind).toBe('fallback');
    expect(fellBack.notice.text).toMatch(
      /^The read replica is \d+ s behind \(the limit is 2 s\): this page is read from the primary/,
    );
    expect(openHoldsShown(fellBack.page.html)).toBe(primaryCount);
    const polled = await overviewJson(strict);
    expect(polled.source).toMatchObject({ from: 'primary', reason: 'lagging', limitSeconds: 2 });
    expect(polled.body.headline.openHolds.now).toBe(primaryCount);

    await resumeAndCatchUp();
    await waitFor('the strict server back on the replica', async () => {
      const { source } = await overviewJson(strict);
      return source?.from === 'replica';
    });
  });

  it('shows the same figures from the replica as the primary has, once caught up', async () => {
    const now = Date.now();
    for (const [index, outcome] of (['succeeded', 'failed', 'succeeded'] as const).entries()) {
      await recordAttempt(
        { db: primary.db, actor: agent },
        anAttempt({
          taskId: `replica-attempts-${randomUUID()}`,
          attemptNumber: index + 1,
          startedAt: new Date(now - 120_000 + index * 1_000),
          finishedAt: new Date(now - 119_000 + index * 1_000),
          outcome,
          ...(outcome === 'failed' ? { errorClass: 'transient', errorText: '503 from downstream' } : {}),
        }),
      );
    }
    await resumeAndCatchUp();
    const at = new Date();
    const [fromPrimary, fromReplica] = await Promise.all(
      [primary, replica].map(async ({ db }) => ({
        overview: await getConsoleOverview(db, '24h', at),
        steps: await getStepStatsView(db, '24h', at),
      })),
    );
    expect(fromReplica).toEqual(fromPrimary);
    expect(fromPrimary!.overview.headline.attempts.now).toBeGreaterThanOrEqual(3);

    const shown = await waitFor('the Overview read from the replica', async () => {
      const figures = await overviewJson(lenient);
      return figures.source?.from === 'replica' ? figures : undefined;
    });
    expect(shown.body.headline).toEqual(JSON.parse(JSON.stringify(fromPrimary!.overview.headline)));
    const page = await get(lenient, '/');
    expect(openHoldsShown(page.html)).toBe(fromPrimary!.overview.headline.openHolds.now);
  });

  it('shows a browser its own change at once, while the replica still has the state from before it', async () => {
    const itemId = await openAHold();
    await resumeAndCatchUp();
    await pauseReplay();
    const holdStatus = async (connection: DatabaseConnection) =>
      (await connection.sql<{ status: string }[]>`select status from holds where item_id = ${itemId}`)[0]?.status;

    const browser = await chromium.launch({ executablePath: chromiumExecutablePath(), args: chromiumArgs });
    try {
      const context = await browser.newContext({ extraHTTPHeaders: adminHeaders });
      const page = await context.newPage();
      await page.goto(`${lenient.baseUrl}/holds`);
      const form = page.getByTestId(`hold-row-${itemId}`).getByTestId('clear-hold-form');
      await form.getByLabel('Note').fill('Cleared while the replica is paused');
      await form.getByRole('button', { name: 'Clear' }).click();
      await page.getByRole('dialog', { name: 'Resume this hold?' }).getByRole('button', { name: 'Resume' }).click();
      // The action's re-render, then a fresh load: both from the primary, where the hold is cleared.
      await page.getByTestId(`hold-row-${itemId}`).waitFor({ state: 'detached', timeout: 15_000 });
      await page.reload();
      expect(await page.content()).not.toContain(itemId);
      const ownWrite = (await context.cookies()).find((cookie) => cookie.name === 'holdfast-own-write');
      expect(decodeURIComponent(ownWrite?.value ?? '')).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    } finally {
      await browser.close();
    }
    expect(await holdStatus(primary)).not.toBe('open');
    // Another browser, with no write of its own, still reads the paused replica.
    expect(await holdStatus(replica)).toBe('open');
    expect((await get(lenient, '/holds')).html).toContain(itemId);
    await resumeAndCatchUp();
  });

  it('falls back to the primary when the replica is stopped: every page still answers 200, with the notice', async () => {
    await replicaCluster.stop();
    const primaryCount = await openHolds(primary);
    const overview = await waitFor('the Overview from the primary', async () => {
      const page = await get(lenient, '/');
      expect(page.status).toBe(200);
      return noticeOn(page.html)?.kind === 'fallback' ? page : undefined;
    });
    expect(noticeOn(overview.html)?.text).toBe(
      'The read replica is not answering: this page is read from the primary database.',
    );
    expect(openHoldsShown(overview.html)).toBe(primaryCount);
    for (const pathname of ['/holds', '/dead-letters', '/locks', '/keys', '/audit', '/steps']) {
      const page = await get(lenient, pathname);
      expect(page.status, pathname).toBe(200);
    }
    const audit = await get(lenient, '/audit');
    expect(noticeOn(audit.html)?.kind).toBe('fallback');
    const { source } = await overviewJson(lenient);
    expect(source).toEqual({ from: 'primary', reason: 'unreachable' });
  });
});
