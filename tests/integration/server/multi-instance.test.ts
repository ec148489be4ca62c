import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumArgs, chromiumExecutablePath } from '../../../e2e/support/browser';
import { SESSION_COOKIE } from '../../../lib/auth/session-token';
import { createDeadLetter, createPerson, type FactoryPerson } from '../../../e2e/support/factories';
import { ensureTaskBudget, finishTask, openHold } from '../../../packages/engine/src/core';
import { readRenewableLease } from '../../../packages/engine/src/core/leases/renewable-lease';
import { connectDatabase, type DatabaseConnection } from '../../../packages/engine/src/db/client';
import { APP_ROLE } from '../../../packages/engine/src/db/database-roles';
import { ensureProductionBuild } from '../../../scripts/lib/production-build';
import { DEMO_FLEET_LEASE } from '../../../scripts/lib/demo-fleet';
import { startHoldfastServer, type HoldfastServer } from '../../support/holdfast-server';
import { useTestDatabase } from '../../support/test-database';
import { anAgent } from '../../support/actors';

/**
 * Two production servers (`scripts/start.ts`, as a process manager runs it) on
 * one database, as behind a load balancer: they sweep every second, and the
 * test checks that they behave as one. Every wait polls for a condition.
 */
const database = useTestDatabase();
const projectRoot = path.resolve(import.meta.dirname, '../../..');
const sessionSecret = randomBytes(32).toString('hex');
const agent = anAgent('multi-instance');
const HOLDS_PER_BATCH = 5;

let connection: DatabaseConnection;
let browser: Browser;
let a: HoldfastServer;
let b: HoldfastServer;
const started: HoldfastServer[] = [];
/** Holds whose condition cleared: one batch before the servers start, one after the first pass. */
const batches: number[][] = [];

function serverEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: database.appUrl,
    DATABASE_MIGRATION_URL: database.ownerUrl,
    SESSION_SECRET: sessionSecret,
    AUTH_MODE: 'demo',
    // Demo sign-in on a named database is refused unless asked for by name; these listen on loopback only.
    HOLDFAST_INSECURE_DEMO: '1',
    HOLDFAST_SWEEP_INTERVAL_SECONDS: '1',
    HOLDFAST_BULK_REDRIVE_STALLED_SECONDS: '3',
    ...extra,
  };
}

async function startServer(extra?: Record<string, string>): Promise<HoldfastServer> {
  const server = await startHoldfastServer({ env: serverEnv(extra) });
  started.push(server);
  return server;
}

/** Polls until `check` holds, up to a deadline; `what` names it in the failure. */
async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Waited ${timeoutMs} ms for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The pid in a lease holder (`host:pid:tag`, then `/pass` for a sweep's). */
const pidOf = (holder: string) => Number(holder.split(':')[1]);

/** A frozen hold on a task that then finished: the reconciliation sweep resolves it, once. */
async function makeSelfClearedHold(): Promise<number> {
  const taskId = `mi-task-${randomUUID()}`;
  const ctx = { db: connection.db, actor: agent };
  await ensureTaskBudget(connection.db, { taskId, agent: agent.id, owner: 'team:platform' });
  const { hold } = await openHold(ctx, {
    itemType: 'task',
    itemId: taskId,
    reason: 'frozen',
    detail: 'No state change for days',
    owner: 'team:platform',
  });
  await finishTask(ctx, { taskId, outcome: 'completed' });
  return hold.id;
}

async function makeBatch(): Promise<number[]> {
  const ids: number[] = [];
  for (let index = 0; index < HOLDS_PER_BATCH; index += 1) ids.push(await makeSelfClearedHold());
  return ids;
}

async function openCount(holdIds: number[]): Promise<number> {
  const [row] = await connection.sql<{ open: number }[]>`
    select count(*)::int as open from holds where id = any(${holdIds}) and status = 'open'`;
  return row!.open;
}

async function signIn(page: Page, server: HoldfastServer, person: FactoryPerson): Promise<void> {
  await page.goto(`${server.baseUrl}/sign-in`);
  await page
    .locator('form')
    .filter({ has: page.locator(`input[name="email"][value="${person.email}"]`) })
    .getByRole('button')
    .click();
  await page.getByTestId('signed-in-person').filter({ hasText: person.email }).waitFor();
}

beforeAll(async () => {
  connection = connectDatabase(database.url, { maxConnections: 4 });
  // pg-boss (the demo fleet) makes its own schema as the application role, as on the embedded database.
  const name = new URL(database.url).pathname.slice(1);
  await connection.sql.unsafe(`grant create on database "${name}" to ${APP_ROLE}`);
  // Build once here, so the two servers start side by side instead of both building.
  ensureProductionBuild(projectRoot, (line) => console.log(line));

  batches.push(await makeBatch());
  [a, b] = await Promise.all([startServer(), startServer()]);
  // Both raced for the first minute's pass; now a second batch for the next minute's.
  await waitFor('the first batch resolved', async () => (await openCount(batches[0]!)) === 0);
  batches.push(await makeBatch());
  browser = await chromium.launch({ executablePath: chromiumExecutablePath(), args: chromiumArgs });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all(started.map((server) => server.kill()));
  await connection?.close();
});

describe('two instances on one database', () => {
  it('accept each other’s sessions, and a sign-out on one ends the session on both', async () => {
    const person = await createPerson(connection, { role: 'viewer' });
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await signIn(page, a, person);
      // Cookies belong to the host, not the port: 127.0.0.1 carries A's cookie to B.
      const cookie = (await context.cookies(a.baseUrl)).find((candidate) => candidate.name === SESSION_COOKIE);
      expect(cookie).toBeDefined();
      await page.goto(`${b.baseUrl}/dead-letters`);
      await page.getByTestId('signed-in-person').filter({ hasText: person.email }).waitFor();
      expect(page.url()).toBe(`${b.baseUrl}/dead-letters`);

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${b.baseUrl}/sign-in`);
      // A copy of the cookie taken before the sign-out no longer opens A's console either.
      await context.addCookies([cookie!]);
      await page.goto(`${a.baseUrl}/dead-letters`);
      await page.waitForURL(/\/sign-in/);
      expect(new URL(page.url()).port).toBe(String(a.port));
    } finally {
      await context.close();
    }
  });

  it('sweep each bucket once between them, and do each sweep’s work once', { timeout: 200_000 }, async () => {
    const holdIds = batches.flat();
    // The second batch waits for the next minute's pass: the reconciliation sweep runs once a minute.
    await waitFor('the second batch resolved', async () => (await openCount(batches[1]!)) === 0, 90_000);

    const resolutions = await connection.sql<{ target_id: string; records: number }[]>`
      select target_id, count(*)::int as records from audit_log
      where action = 'hold.resolve' and target_type = 'hold' and target_id = any(${holdIds.map(String)})
      group by target_id`;
    expect(resolutions).toHaveLength(holdIds.length);
    expect(resolutions.every((row) => row.records === 1)).toBe(true);
    // The passes that resolved them, as each instance logged them: together, each hold once.
    const resolvedIn = (server: HoldfastServer) =>
      [...server.output().matchAll(/Sweep reconcile_holds: (\d+) hold\(s\) resolved/g)].reduce(
        (sum, match) => sum + Number(match[1]),
        0,
      );
    // A pass logs after it commits: its line may reach this process a moment after its audit records.
    await waitFor('the passes that resolved them to log it', () => resolvedIn(a) + resolvedIn(b) >= holdIds.length);
    expect(resolvedIn(a) + resolvedIn(b)).toBe(holdIds.length);

    // Which instance takes a bucket is a race: each ticks at a random point around the second, and the first to
    // tick after a bucket opens takes it (and, in its tick, the other jobs' buckets that opened with it). A run
    // can end with one instance having won every race so far; within a few more ten-second buckets the other
    // wins some. An instance whose sweeps never run fails here.
    await waitFor(
      'both instances to have taken a bucket',
      async () => {
        const holders = await connection.sql<{ holder: string }[]>`
          select distinct holder from leases where bucket <> 'renewable'`;
        const pids = new Set(holders.map((row) => pidOf(row.holder)));
        return pids.has(a.process.pid!) && pids.has(b.process.pid!);
      },
      90_000,
    );
    expect(`${a.output()}${b.output()}`).not.toMatch(/Sweep failed|Alert pass failed/);
    const passes = await connection.sql<{ job: string; bucket: string; holder: string; done: boolean }[]>`
      select job, bucket, holder, completed_at is not null or expires_at > now() as done
      from leases where bucket <> 'renewable' order by job, bucket`;
    // One row per (job, bucket) is the primary key's doing; each was taken by one of the two, and finished
    // (or is still running as this reads).
    expect(passes.filter((pass) => ![a.process.pid, b.process.pid].includes(pidOf(pass.holder)))).toEqual([]);
    expect(passes.filter((pass) => !pass.done)).toEqual([]);
    const reconcileBuckets = passes.filter((pass) => pass.job === 'reconcile_holds').map((pass) => pass.bucket);
    expect(reconcileBuckets.length).toBeGreaterThanOrEqual(2);
    expect(new Set(reconcileBuckets).size).toBe(reconcileBuckets.length);
    // Both took part, and no other holder: the buckets went to whichever instance came first.
    const byPid = new Set(passes.map((pass) => pidOf(pass.holder)));
    expect(byPid).toEqual(new Set([a.process.pid, b.process.pid]));
  });

  it('finish a bulk redrive on B that was started on A, after A was killed, redriving nothing twice', {
    timeout: 120_000,
  }, async () => {
    const queue = `mi-${randomUUID().slice(0, 8)}`;
    const deadLetterIds: number[] = [];
    for (let index = 0; index < 30; index += 1)
      deadLetterIds.push(await createDeadLetter(connection, { queue, errorText: `503 from the CDN (${index})` }));
    const responder = await createPerson(connection, { role: 'responder' });

    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await signIn(page, a, responder);
      await page.goto(`${a.baseUrl}/dead-letters?queue=${queue}`);
      await page.getByTestId('bulk-redrive-open').click();
      const dialog = page.getByTestId('bulk-redrive-dialog');
      await dialog.getByRole('heading', { name: 'Redrive 30 dead letters?' }).waitFor();
      await dialog.getByLabel('Reason (kept in the audit log)').fill('CDN is back');
      await dialog.getByLabel('Items per second').fill('2');
      await dialog.getByRole('button', { name: 'Redrive 30' }).click();
      await page.locator('[data-testid^="bulk-redrive-progress-"]').first().waitFor();
    } finally {
      await context.close();
    }

    const runOf = async () => {
      const [run] = await connection.sql<
        { id: number; status: string; total: number; processed: number; redriven: number; skipped: number }[]
      >`select id, status, total, processed, redriven, skipped from bulk_redrives where filter->>'queue' = ${queue}`;
      return run;
    };
    await waitFor('A to redrive a few items', async () => ((await runOf())?.processed ?? 0) >= 4, 30_000);
    await a.kill();
    const atKill = (await runOf())!;
    expect(atKill.status).toBe('running');
    expect(atKill.processed).toBeLessThan(30);

    // A's heartbeat goes quiet; within the stalled threshold and a resume bucket, B's sweep carries it on.
    await waitFor('B to finish the run', async () => (await runOf())?.status === 'completed', 90_000);
    // B's sweep says so once its tick's passes are all done, a moment after the run's last batch.
    await waitFor('B to log that it carried the run on', () =>
      /Sweep resume_bulk_redrives: 1 stalled bulk redrive\(s\) carried on/.test(b.output()),
    );
    const run = (await runOf())!;
    expect(run).toMatchObject({ status: 'completed', total: 30, processed: 30, redriven: 30, skipped: 0 });

    const [items] = await connection.sql<{ undecided: number }[]>`
      select count(*) filter (where outcome is null)::int as undecided from bulk_redrive_items where bulk_redrive_id = ${run.id}`;
    expect(items!.undecided).toBe(0);
    const outbox = await connection.sql<{ dead_letter_id: number; rows: number }[]>`
      select dead_letter_id::int, count(*)::int as rows from redrives where dead_letter_id = any(${deadLetterIds})
      group by dead_letter_id`;
    expect(outbox).toHaveLength(30);
    expect(outbox.every((row) => row.rows === 1)).toBe(true);
    const audits = await connection.sql<{ target_id: string; records: number }[]>`
      select target_id, count(*)::int as records from audit_log
      where action = 'dead_letter.redrive' and target_id = any(${deadLetterIds.map(String)}) group by target_id`;
    expect(audits).toHaveLength(30);
    expect(audits.every((row) => row.records === 1)).toBe(true);
    await b.stop();
  });

  it('run the demo fleet on one instance only, and another takes it over when that one dies', {
    timeout: 240_000,
  }, async () => {
    // A 5 s lease: a dead holder's lapses within 5 s, and the other instance checks every ~2 s; short enough for
    // the test, long enough that a busy machine's late renewal is not taken for a death.
    const fleetEnv = {
      HOLDFAST_DEMO: 'on',
      HOLDFAST_DEMO_FLEET_LEASE_SECONDS: '5',
      HOLDFAST_SWEEP_INTERVAL_SECONDS: '0',
    };
    const pair = await Promise.all([startServer(fleetEnv), startServer(fleetEnv)]);
    const running = (server: HoldfastServer) => server.output().includes('Demo fleet running');
    const waiting = (server: HoldfastServer) =>
      server.output().includes('Demo fleet runs on another instance; this one takes over if it stops');
    await waitFor('one to run the fleet and the other to wait', () => pair.some(running) && pair.some(waiting));
    const runner = pair.find(running)!;
    const other = pair.find((server) => server !== runner)!;
    expect(running(other)).toBe(false);
    expect(pidOf((await readRenewableLease(connection, DEMO_FLEET_LEASE))!.holder)).toBe(runner.process.pid);

    await runner.kill();
    await waitFor('the other to take the fleet over', () => running(other), 60_000);
    expect(other.output()).toContain('Demo fleet: the instance that ran it stopped; this one takes it over');
    expect(pidOf((await readRenewableLease(connection, DEMO_FLEET_LEASE))!.holder)).toBe(other.process.pid);

    // A clean stop lets the lease go at once, for whichever instance checks next.
    expect(await other.stop()).toBe(0);
    expect((await readRenewableLease(connection, DEMO_FLEET_LEASE))?.live).toBe(false);
  });
});
