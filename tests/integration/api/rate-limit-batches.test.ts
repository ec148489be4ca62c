import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  batchCap,
  createApiToken,
  GRANT_LEASE_MS,
  RequestGrants,
  takeRequestTokens,
} from '../../../packages/engine/src/core';
import { connectDatabase } from '../../../packages/engine/src/db/client';
import { apiTokenBuckets } from '../../../packages/engine/src/db/schema';
import { useTestDatabase } from '../../support/test-database';
import { aPerson } from '../../support/actors';

/**
 * The rate limit without a statement per request: each instance takes requests from the token's shared bucket
 * (one row in PostgreSQL) in batches and spends them itself. Both clocks are inputs: the bucket's (`at`,
 * `databaseNow`) and the lease's (`now`).
 */
const database = useTestDatabase();
const admin = aPerson('admin', 'admin@example.com');
const t0 = new Date('2026-12-03T10:00:00.000Z');

async function tokenId() {
  const { record } = await createApiToken(
    { db: database.db, actor: admin },
    { name: `batched-${randomUUID()}`, scopes: ['ingest'] },
  );
  return record.id;
}

async function tokensLeft(id: number) {
  const [bucket] = await database.db.select().from(apiTokenBuckets).where(eq(apiTokenBuckets.tokenId, id));
  return bucket?.tokens;
}

describe('taking a batch from the shared bucket', () => {
  it('takes as many whole requests as it holds, up to the batch, and says when one is back', async () => {
    const id = await tokenId();
    const limit = { perSecond: 2, burst: 10 };
    expect(await takeRequestTokens(database.db, id, limit, 4, t0)).toEqual({ taken: 4, retryAfterSeconds: 0 });
    expect(await takeRequestTokens(database.db, id, limit, 4, t0)).toEqual({ taken: 4, retryAfterSeconds: 0 });
    expect(await takeRequestTokens(database.db, id, limit, 4, t0)).toEqual({ taken: 2, retryAfterSeconds: 0 });
    expect(await takeRequestTokens(database.db, id, limit, 4, t0)).toEqual({ taken: 0, retryAfterSeconds: 1 });
    // 1.6 s at 2 a second: 3.2 back, so 3 whole requests.
    expect(await takeRequestTokens(database.db, id, limit, 4, new Date(t0.getTime() + 1_600))).toEqual({
      taken: 3,
      retryAfterSeconds: 0,
    });
    expect(await tokensLeft(id)).toBeCloseTo(0.2, 5);
  });

  it('takes all of a whole charge or none, so charges racing for one bucket never leave it empty and all refused', async () => {
    const id = await tokenId();
    const limit = { perSecond: 0.01, burst: 250 };
    expect(await takeRequestTokens(database.db, id, limit, 300, t0, true)).toEqual({
      taken: 0,
      retryAfterSeconds: 5_000,
    });
    // Five charges of 100 at once, on five connections: exactly two are let through, and 50 stay in the bucket.
    const instance = connectDatabase(database.url, { maxConnections: 5 });
    try {
      const charges = await Promise.all(
        Array.from({ length: 5 }, () => takeRequestTokens(instance.db, id, limit, 100, t0, true)),
      );
      expect(charges.map((charge) => charge.taken).sort((a, b) => b - a)).toEqual([100, 100, 0, 0, 0]);
      // Refused, a charge says when all it needs will be back: 50 more at 0.01 a second.
      expect(charges.filter((charge) => charge.taken === 0).map((charge) => charge.retryAfterSeconds)).toEqual([
        5_000, 5_000, 5_000,
      ]);
    } finally {
      await instance.close();
    }
    expect(await tokensLeft(id)).toBeCloseTo(50, 5);
  });

  it('never gives out more than the bucket holds to many instances taking at once', async () => {
    const id = await tokenId();
    const limit = { perSecond: 0.01, burst: 50 };
    const instances = [
      connectDatabase(database.url, { maxConnections: 4 }),
      connectDatabase(database.url, { maxConnections: 4 }),
    ];
    try {
      const taken = await Promise.all(
        instances.flatMap((instance) =>
          Array.from({ length: 15 }, () => takeRequestTokens(instance.db, id, limit, 3, t0)),
        ),
      );
      expect(taken.reduce((sum, reservation) => sum + reservation.taken, 0)).toBe(50);
    } finally {
      await Promise.all(instances.map((instance) => instance.close()));
    }
  });
});

describe('requests granted from batches', () => {
  it('keeps a small limit exact: its batch is one request, a statement per request as before', async () => {
    expect(batchCap({ perSecond: 0.01, burst: 3 })).toBe(1);
    expect(batchCap({ perSecond: 200, burst: 2_000 })).toBe(25);
    expect(batchCap({ perSecond: 100_000, burst: 1_000_000 })).toBe(64);
    const id = await tokenId();
    const grants = new RequestGrants({ now: () => 0, databaseNow: () => t0 });
    const limit = { perSecond: 7, burst: 3 };
    const decisions = [];
    for (let i = 0; i < 5; i++) decisions.push(await grants.take(database.db, id, limit));
    expect(decisions.map((decision) => decision.granted)).toEqual([true, true, true, false, false]);
    expect(grants.heldFor(database.db, id)).toBe(0);
  });

  it('across instances grants no more than the shared bucket holds; what is not granted is held, never lost track of', async () => {
    const id = await tokenId();
    const limit = { perSecond: 800, burst: 800 };
    const instances = [
      connectDatabase(database.url, { maxConnections: 4 }),
      connectDatabase(database.url, { maxConnections: 4 }),
    ];
    const grants = instances.map(() => new RequestGrants({ now: () => 0, databaseNow: () => t0 }));
    try {
      const decisions = await Promise.all(
        instances.flatMap((instance, index) =>
          Array.from({ length: 600 }, () => grants[index]!.take(instance.db, id, limit)),
        ),
      );
      const granted = decisions.filter((decision) => decision.granted).length;
      const held = grants.reduce((sum, instance, index) => sum + instance.heldFor(instances[index]!.db, id), 0);
      expect(granted + held).toBe(800);
      // The bound: each instance may hold at most one batch that another instance's requests were refused for.
      expect(held).toBeLessThanOrEqual(2 * batchCap(limit));
      expect(await tokensLeft(id)).toBe(0);
    } finally {
      await Promise.all(instances.map((instance) => instance.close()));
    }
  });

  it('takes bigger batches only while the requests spend them, and drops what a lease did not spend', async () => {
    const id = await tokenId();
    const clock = { ms: 0 };
    const grants = new RequestGrants({ now: () => clock.ms, databaseNow: () => t0 });
    const limit = { perSecond: 800, burst: 800 };
    // Requests far apart take one at a time: each lease ends before the next request.
    for (let i = 0; i < 3; i++) {
      expect(await grants.take(database.db, id, limit)).toEqual({ granted: true });
      clock.ms += GRANT_LEASE_MS;
    }
    expect(await tokensLeft(id)).toBe(797);
    // Requests close together double the batch each time they spend a whole one: 1, 2, 4, 8 ...
    // Twelve requests: batches of 1, 2 and 4, then one of 8 with 3 of it not spent yet.
    for (let i = 0; i < 12; i++) await grants.take(database.db, id, limit);
    expect(grants.heldFor(database.db, id)).toBe(3);
    expect(await tokensLeft(id)).toBe(797 - 15);
    // A lease's leftovers are not spent after it ends: the next request takes a new batch from the row.
    const before = await tokensLeft(id);
    clock.ms += GRANT_LEASE_MS;
    expect(await grants.take(database.db, id, limit)).toEqual({ granted: true });
    expect(await tokensLeft(id)).toBeLessThan(before!);
  });
});
