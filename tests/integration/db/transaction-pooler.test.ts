import { existsSync } from 'node:fs';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../../packages/engine/src/db/client';
import { losesSessionState, poolerRefusal } from '../../../packages/engine/src/db/pooler-probe';
import { LockSessionNotKeptError, openRequestLocks } from '../../../lib/server/request-locks';
import { findFreePort } from '../../../packages/engine/src/db/embedded-postgres';
import { PGBOUNCER_BIN, startPgBouncer, type PgBouncer } from '../../../scripts/ci/failover/pgbouncer';
import { POSTGRES_15_BIN, startPostgres15, type Postgres15 } from '../../../scripts/ci/failover/postgres-15';
import { stopAllGroups } from '../../../scripts/ci/failover/process-groups';

/**
 * Holdfast behind Debian's PgBouncer 1.18 in transaction mode, in front of a
 * PostgreSQL 15 of the test's own: what such a pooler breaks (prepared
 * statements, session locks) and what Holdfast does about it.
 */
const missing = [PGBOUNCER_BIN, path.join(POSTGRES_15_BIN, 'postgres')].filter((binary) => !existsSync(binary));
if (missing.length > 0) console.log(`Skipping the transaction-pooler tests: ${missing.join(', ')} missing`);

let folder: string;
let postgres: Postgres15;
let bouncer: PgBouncer;
/** A small pool: with more clients than server connections, each statement may land on any of them. */
const POOL_SIZE = 2;

beforeAll(async () => {
  if (missing.length > 0) return;
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'holdfast-pooler-'));
  fs.chmodSync(folder, 0o755);
  postgres = await startPostgres15(folder, await findFreePort(), { max_connections: 30 });
  bouncer = await startPgBouncer({
    folder,
    port: await findFreePort(),
    upstream: { host: '127.0.0.1', port: postgres.port },
    poolSize: POOL_SIZE,
  });
});

afterAll(async () => {
  await bouncer?.stop();
  await postgres?.stop();
  stopAllGroups();
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
});

describe.skipIf(missing.length > 0)('behind PgBouncer in transaction mode', () => {
  it('start-up tells a transaction pooler from a direct connection', async () => {
    expect(await losesSessionState(postgres.url())).toBe(false);
    expect(await losesSessionState(bouncer.url('postgres'))).toBe(true);
  });

  it('start-up refuses with one line naming the setting to change', async () => {
    const pooled = bouncer.url('postgres');
    expect(await poolerRefusal({ databaseUrl: pooled })).toMatch(/^DATABASE_URL .* add prepare=false/);
    expect(await poolerRefusal({ databaseUrl: `${pooled}?prepare=false` })).toMatch(
      /^DATABASE_URL .* set DATABASE_SESSION_URL to a direct connection/,
    );
    expect(
      await poolerRefusal({ databaseUrl: `${pooled}?prepare=false`, sessionUrl: `${pooled}?prepare=false` }),
    ).toMatch(/^DATABASE_SESSION_URL /);
    expect(await poolerRefusal({ databaseUrl: `${pooled}?prepare=false`, sessionUrl: postgres.url() })).toBeUndefined();
    expect(await poolerRefusal({ databaseUrl: postgres.url() })).toBeUndefined();
  });

  it('with prepare=false, drizzle’s statements go through from more clients than server connections', async () => {
    const pools = [1, 2, 3].map(() =>
      connectDatabase(`${bouncer.url('postgres')}?prepare=false`, { maxConnections: 8 }),
    );
    try {
      const answers = await Promise.all(
        pools.flatMap((pool) =>
          Array.from({ length: 100 }, (_, index) =>
            pool.db.transaction(async (tx) => {
              const [row] = await tx.execute<{ echoed: number }>(sql`select ${index}::int as echoed`);
              return row?.echoed;
            }),
          ),
        ),
      );
      expect(answers).toEqual(pools.flatMap(() => Array.from({ length: 100 }, (_, index) => index)));
    } finally {
      await Promise.all(pools.map((pool) => pool.close()));
    }
  });

  it('with prepared statements on (the default), statements land where they were never prepared: why prepare=false is needed', async () => {
    // A client's statement is prepared on one server connection and run again on whichever the pooler gives it
    // next. PostgreSQL refuses it there; the driver prepares it again and retries, or its connection waits for
    // good. Which of the two, and whether every statement is answered in the end, depends on the timing, so the
    // test counts the refusals in the server's log.
    const refusals = () => postgres.group.output().match(/prepared statement "[^"]+" does not exist/g)?.length ?? 0;
    expect(refusals()).toBe(0);
    const pools = [1, 2, 3].map(() => connectDatabase(bouncer.url('postgres'), { maxConnections: 8 }));
    try {
      // Waves of statements until the server has logged a refusal, for 10 s at most: on a quiet machine one wave
      // can be answered in a few milliseconds, before the server's log line is read, or with every client given
      // back the server connection it prepared on.
      const deadline = Date.now() + 10_000;
      do {
        const work = Promise.all(
          pools.flatMap((pool) =>
            Array.from({ length: 100 }, (_, index) => pool.db.execute(sql`select ${index}::int`)),
          ),
        ).catch(() => undefined);
        await Promise.race([work, new Promise((resolve) => setTimeout(resolve, 1_000))]);
      } while (refusals() === 0 && Date.now() < deadline);
      expect(refusals()).toBeGreaterThan(0);
    } finally {
      await Promise.all(pools.map((pool) => pool.sql.end({ timeout: 0 })));
    }
  });

  it('an Idempotency-Key lock is never granted to a second client through the pooler', async () => {
    // The session locks' mark makes a shared session refuse (503) instead of granting one client's lock to another.
    const url = `${bouncer.url('postgres')}?prepare=false`;
    const first = openRequestLocks(url);
    const second = openRequestLocks(url);
    try {
      const release = await first.tryAcquire('agent-a', 'key-1');
      expect(release).toBeTypeOf('function');
      const outcome = await second.tryAcquire('agent-a', 'key-1').then(
        (granted) => (granted ? 'granted' : 'refused'),
        (error: unknown) => (error instanceof LockSessionNotKeptError ? 'session not kept' : String(error)),
      );
      expect(['refused', 'session not kept']).toContain(outcome);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('on a direct connection the locks behave as before: one holder, free again after release', async () => {
    const first = openRequestLocks(postgres.url());
    const second = openRequestLocks(postgres.url());
    try {
      const release = await first.tryAcquire('agent-a', 'key-2');
      expect(release).toBeTypeOf('function');
      expect(await second.tryAcquire('agent-a', 'key-2')).toBeUndefined();
      await release!();
      const again = await second.tryAcquire('agent-a', 'key-2');
      expect(again).toBeTypeOf('function');
      await again!();
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('on a direct connection, requests arriving together at a fresh connection are all granted their own keys', async () => {
    // They share one marking of the new session: none is refused as if the session belonged to another client.
    const locks = openRequestLocks(postgres.url());
    try {
      const releases = await Promise.all(
        Array.from({ length: 20 }, (_, index) => locks.tryAcquire('agent-a', `together-${index}`)),
      );
      expect(releases.every((release) => typeof release === 'function')).toBe(true);
      await Promise.all(releases.map((release) => release?.()));
    } finally {
      await locks.close();
    }
  });

  it('after a wedged locks connection is replaced, the old one closing later does not break the new one', async () => {
    const locks = openRequestLocks(postgres.url());
    const admin = connectDatabase(postgres.url(), { maxConnections: 1 });
    try {
      const first = await locks.tryAcquire('agent-a', 'wedge-1');
      await first!();
      // Freeze the locks connection's backend: the next statement outlives its 3 s and the client is replaced.
      const [backend] = await admin.sql<{ pid: number }[]>`
        select pid from pg_stat_activity where query like '%pg_advisory_unlock%' and pid <> pg_backend_pid()`;
      process.kill(backend!.pid, 'SIGSTOP');
      try {
        await expect(locks.tryAcquire('agent-a', 'wedge-2')).rejects.toMatchObject({ code: 'CONNECT_TIMEOUT' });
        const replaced = await locks.tryAcquire('agent-a', 'wedge-3');
        expect(replaced).toBeTypeOf('function');
        await replaced!();
      } finally {
        process.kill(backend!.pid, 'SIGCONT');
      }
      // The old client's session ends now (its close reaches this process after the new one is marked).
      await admin.sql`select pg_terminate_backend(${backend!.pid})`;
      await new Promise((resolve) => setTimeout(resolve, 200));
      const later = await Promise.all([locks.tryAcquire('agent-a', 'wedge-4'), locks.tryAcquire('agent-a', 'wedge-5')]);
      expect(later.every((release) => typeof release === 'function')).toBe(true);
      await Promise.all(later.map((release) => release?.()));
    } finally {
      await Promise.all([locks.close(), admin.close()]);
    }
  });
});
