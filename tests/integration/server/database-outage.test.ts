import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { NextRequest } from 'next/server';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { endpoints } from '@holdfast/protocol/api/endpoints';
import { createApiToken, type Actor } from '../../../packages/engine/src/core';
import { connectDatabase, type DatabaseConnection } from '../../../packages/engine/src/db/client';
import { findFreePort } from '../../../packages/engine/src/db/embedded-postgres';
import { migrateDatabase } from '../../../packages/engine/src/db/migrate';
import { apiRequests } from '../../../packages/engine/src/db/schema';
import { createKillablePostgres, type KillablePostgres } from '../../../scripts/ci/faults/killable-postgres';

/** An hour ago, so the reports stay inside the raw retention whatever day the tests run. */
const anHourAgo = Date.now() - 3_600_000;
const recently = (offsetMs = 0) => new Date(anHourAgo + offsetMs).toISOString();

/**
 * PostgreSQL going away under the server: a PostgreSQL of this file's own
 * (so it can be killed with SIGKILL and started again on the same port), the
 * real route handlers, actions and health check called in-process.
 */
const person = { type: 'person', id: 'oncall@example.com', role: 'admin', teams: [] } as const;
const session = vi.hoisted(() => ({ current: async (): Promise<unknown> => undefined }));
vi.mock('../../../lib/server/session', () => ({ getCurrentPerson: () => session.current() }));

let postgres: KillablePostgres;
let folder: string;
let library: DatabaseConnection;
let token: string;
const holder = globalThis as typeof globalThis & { holdfastDatabase?: DatabaseConnection };

beforeAll(async () => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'holdfast-outage-test-'));
  postgres = await createKillablePostgres(folder, await findFreePort());
  await postgres.start();
  await migrateDatabase(postgres.url);
  process.env.DATABASE_URL = postgres.url;
  library = connectDatabase(postgres.url, { maxConnections: 2, connectTimeoutSeconds: 2 });
  const admin: Actor = { ...person, teams: [] };
  token = (await createApiToken({ db: library.db, actor: admin }, { name: 'outage', scopes: ['ingest', 'read'] }))
    .token;
}, 60_000);

afterAll(async () => {
  await holder.holdfastDatabase?.close();
  holder.holdfastDatabase = undefined;
  await library?.close();
  await postgres?.destroy();
  fs.rmSync(folder, { recursive: true, force: true });
});

beforeEach(() => {
  session.current = async () => person;
});

function attemptBatch(label: string) {
  return {
    attempts: [
      {
        taskId: `${label}-${randomUUID()}`,
        agent: 'outage',
        step: 'write',
        attemptNumber: 1,
        startedAt: recently(),
        finishedAt: recently(1_000),
        outcome: 'succeeded',
      },
    ],
  };
}

function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  return new NextRequest(`http://holdfast.test${url}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
  });
}

async function expectDatabaseUnavailable(response: Response) {
  expect(response.status).toBe(503);
  expect(response.headers.get('content-type')).toContain('application/problem+json');
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(await response.json()).toMatchObject({ code: 'DATABASE_UNAVAILABLE', retryable: true });
}

describe('while PostgreSQL is down', () => {
  beforeAll(async () => {
    await postgres.kill();
  });
  afterAll(async () => {
    await postgres.start();
  });

  it('agent endpoints answer 503 DATABASE_UNAVAILABLE with Retry-After, with or without an Idempotency-Key', async () => {
    const { POST } = await import('../../../app/api/v1/attempts/batch/route');
    await expectDatabaseUnavailable(await POST(post('/api/v1/attempts/batch', attemptBatch('down'))));
    await expectDatabaseUnavailable(
      await POST(post('/api/v1/attempts/batch', attemptBatch('down'), { 'idempotency-key': randomUUID() })),
    );
    const stepStats = await import('../../../app/api/v1/step-stats/route');
    await expectDatabaseUnavailable(
      await stepStats.GET(
        new NextRequest('http://holdfast.test/api/v1/step-stats', { headers: { authorization: `Bearer ${token}` } }),
      ),
    );
  });

  it('console route handlers answer 503, also when reading the session is what fails', async () => {
    const overview = await import('../../../app/api/console/overview/route');
    await expectDatabaseUnavailable(await overview.GET(new NextRequest('http://holdfast.test/api/console/overview')));
    session.current = () => library.db.execute(sql`select 1`);
    const stepStats = await import('../../../app/api/console/step-stats/route');
    await expectDatabaseUnavailable(
      await stepStats.GET(new NextRequest('http://holdfast.test/api/console/step-stats')),
    );
  });

  it('server actions answer DATABASE_UNAVAILABLE, not INTERNAL_ERROR', async () => {
    const { runAction } = await import('../../../lib/server/action');
    const result = await runAction((ctx) => ctx.db.execute(sql`select 1`));
    expect(result).toMatchObject({ ok: false, code: 'DATABASE_UNAVAILABLE' });
  });

  it('/api/health answers 503 naming the database as down, with Retry-After', async () => {
    const { GET } = await import('../../../app/api/health/route');
    const response = await GET();
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).not.toBeNull();
    expect(await response.json()).toMatchObject({
      status: 'unavailable',
      down: ['database'],
      database: { reachable: false },
    });
  });
});

describe('an Idempotency-Key in flight when PostgreSQL dies', () => {
  it('is answered for real by the first retry after recovery, not refused as in progress', async () => {
    const { agentEndpoint } = await import('../../../lib/server/agent-endpoint');
    const { POST } = await import('../../../app/api/v1/attempts/batch/route');
    const key = `in-flight-${randomUUID()}`;
    const body = attemptBatch('in-flight');
    // A handler that loses the database half-way: the marker is written, then PostgreSQL dies.
    const dying = agentEndpoint(endpoints.recordAttempts, async (ctx) => {
      await postgres.kill();
      await ctx.db.execute(sql`select 1`);
      return { status: 200, body: {} };
    });
    await expectDatabaseUnavailable(await dying(post('/api/v1/attempts/batch', body, { 'idempotency-key': key })));
    await postgres.start();

    const retry = await POST(post('/api/v1/attempts/batch', body, { 'idempotency-key': key }));
    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual({ recorded: 1, duplicates: 0 });
  });

  it('left by a crashed server process (no live request holds it) is taken over at once', async () => {
    const { POST } = await import('../../../app/api/v1/attempts/batch/route');
    const key = `crashed-${randomUUID()}`;
    const body = attemptBatch('crashed');
    const first = await POST(post('/api/v1/attempts/batch', body, { 'idempotency-key': key }));
    expect(first.status).toBe(200);
    // What a process that died mid-request leaves: the key marked in flight a moment ago, no answer kept.
    await library.db.execute(
      sql`update ${apiRequests} set status = null, response_body = null, created_at = now() where idempotency_key = ${key}`,
    );
    const retry = await POST(post('/api/v1/attempts/batch', body, { 'idempotency-key': key }));
    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual({ recorded: 0, duplicates: 1 });
  });

  it('still refuses a concurrent duplicate with 409 REQUEST_IN_PROGRESS while the first is alive, then replays its answer', async () => {
    const { agentEndpoint } = await import('../../../lib/server/agent-endpoint');
    const key = `concurrent-${randomUUID()}`;
    const body = attemptBatch('concurrent');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const slow = agentEndpoint(endpoints.recordAttempts, async () => {
      entered();
      await gate;
      return { status: 200, body: { recorded: 1, duplicates: 0 } };
    });
    const first = slow(post('/api/v1/attempts/batch', body, { 'idempotency-key': key }));
    await inside;
    const duplicate = await slow(post('/api/v1/attempts/batch', body, { 'idempotency-key': key }));
    expect(duplicate.status).toBe(409);
    expect(await duplicate.json()).toMatchObject({ code: 'REQUEST_IN_PROGRESS', retryable: true });
    release();
    expect((await first).status).toBe(200);
    const replay = await slow(post('/api/v1/attempts/batch', body, { 'idempotency-key': key }));
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });
});
