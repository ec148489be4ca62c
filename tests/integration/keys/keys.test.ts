import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  claimKey,
  completeKey,
  failKey,
  hashContent,
  KeyPayloadMismatchError,
  StaleTokenError,
  type ClaimOutcome,
} from '../../../packages/engine/src/core';
import { deleteExpiredKeys } from '../../../packages/engine/src/core/keys/sweep-keys';
import { storedRawKey } from '../../../packages/engine/src/core/keys/raw-key-name';
import { connectDatabase } from '../../../packages/engine/src/db/client';
import { idempotencyKeys } from '../../../packages/engine/src/db/schema';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();
const ctx = () => ({ db: database.db });
/** Moves a claim past its in-progress expiry by hand: time is an input, never slept through. */
async function expireClaim(key: string) {
  const moved =
    await database.sql`update idempotency_keys set locked_until = now() - interval '1 second' where key = ${storedRawKey(key)}`;
  expect(moved.count).toBe(1);
}
const freshKey = () => `task-${randomUUID()}/send_email`;
const hashA = hashContent({ to: 'a@example.com', body: 'hello' });
const hashB = hashContent({ to: 'b@example.com', body: 'hello' });

describe('claimKey', () => {
  it('acquires a new key with token 1, and replays its stored result once completed', async () => {
    const key = freshKey();
    const first = await claimKey(ctx(), { key, requestHash: hashA });
    expect(first).toEqual({ outcome: 'acquired', key, fencingToken: 1, attemptNumber: 1 });

    await completeKey(ctx(), { key, fencingToken: 1, result: { messageId: 'm-1' } });
    expect(await claimKey(ctx(), { key, requestHash: hashA })).toEqual({
      outcome: 'replay',
      key,
      result: { messageId: 'm-1' },
    });
  });

  it('tells a concurrent duplicate that the key is in progress, and when to retry', async () => {
    const key = freshKey();
    await claimKey(ctx(), { key, requestHash: hashA, inProgressTtlMs: 30_000 });
    const duplicate = await claimKey(ctx(), { key, requestHash: hashA });
    expect(duplicate.outcome).toBe('in_progress');
    if (duplicate.outcome !== 'in_progress') return;
    expect(duplicate.retryAfterMs).toBeGreaterThan(25_000);
    expect(duplicate.retryAfterMs).toBeLessThanOrEqual(30_000);
  });

  it('refuses different content under the same key on every path, and never overwrites', async () => {
    const key = freshKey();
    const mismatch = () => claimKey(ctx(), { key, requestHash: hashB, inProgressTtlMs: 60_000 });
    await claimKey(ctx(), { key, requestHash: hashA, inProgressTtlMs: 60_000 });
    await expect(mismatch()).rejects.toBeInstanceOf(KeyPayloadMismatchError); // while in progress
    await expireClaim(key);
    await expect(mismatch()).rejects.toMatchObject({ code: 'KEY_PAYLOAD_MISMATCH' }); // past the in-progress expiry
    const retaken = await claimKey(ctx(), { key, requestHash: hashA });
    expect(retaken.outcome).toBe('acquired');
    await failKey(ctx(), {
      key,
      fencingToken: (retaken as { fencingToken: number }).fencingToken,
      errorClass: 'transient',
      errorText: '503',
    });
    await expect(mismatch()).rejects.toMatchObject({ code: 'KEY_PAYLOAD_MISMATCH' }); // after a failure
    const again = (await claimKey(ctx(), { key, requestHash: hashA })) as { fencingToken: number };
    await completeKey(ctx(), { key, fencingToken: again.fencingToken, result: 'done' });
    await expect(mismatch()).rejects.toMatchObject({ code: 'KEY_PAYLOAD_MISMATCH' }); // after completion

    const [row] = await database.db
      .select()
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.key, storedRawKey(key)));
    expect(row).toMatchObject({ requestHash: hashA, status: 'completed', result: 'done' });
  });

  it('lets another claim take over from a holder that stopped, and refuses the old holder late', async () => {
    const key = freshKey();
    const crashed = (await claimKey(ctx(), { key, requestHash: hashA, inProgressTtlMs: 60_000, holder: 'run-1' })) as {
      fencingToken: number;
    };
    // run-1 "crashed" and never completed; while its claim is live nobody takes over.
    expect(await claimKey(ctx(), { key, requestHash: hashA, holder: 'run-2' })).toMatchObject({
      outcome: 'in_progress',
    });
    await expireClaim(key);

    const successor = await claimKey(ctx(), { key, requestHash: hashA, holder: 'run-2' });
    expect(successor).toMatchObject({ outcome: 'acquired', fencingToken: crashed.fencingToken + 1, attemptNumber: 2 });

    const late = completeKey(ctx(), { key, fencingToken: crashed.fencingToken, result: 'from the zombie' });
    await expect(late).rejects.toBeInstanceOf(StaleTokenError);
    await completeKey(ctx(), { key, fencingToken: crashed.fencingToken + 1, result: 'from run-2' });
    expect(await claimKey(ctx(), { key, requestHash: hashA })).toMatchObject({
      outcome: 'replay',
      result: 'from run-2',
    });
  });

  it('calls an expired claim on a non-idempotent downstream uncertain, and never hands it out again', async () => {
    const key = freshKey();
    await claimKey(ctx(), { key, requestHash: hashA, inProgressTtlMs: 60_000, downstreamIdempotent: false });
    expect(await claimKey(ctx(), { key, requestHash: hashA, downstreamIdempotent: false })).toMatchObject({
      outcome: 'in_progress',
    });
    await expireClaim(key);
    for (let call = 0; call < 3; call++) {
      expect(await claimKey(ctx(), { key, requestHash: hashA, downstreamIdempotent: false })).toMatchObject({
        outcome: 'uncertain',
        fencingToken: 1,
      });
    }
  });

  it('treats a key past its retention as a new operation', async () => {
    const key = freshKey();
    const first = (await claimKey(ctx(), { key, requestHash: hashA, retentionMs: 1_000 })) as { fencingToken: number };
    await completeKey(ctx(), { key, fencingToken: first.fencingToken, result: 1 });
    await database.sql`update idempotency_keys set expires_at = now() - interval '1 second' where key = ${storedRawKey(key)}`;

    expect(await claimKey(ctx(), { key, requestHash: hashB })).toMatchObject({ outcome: 'acquired', attemptNumber: 1 });
  });

  it('never lets retention end a live claim: a duplicate waits even when retention is shorter than the claim', async () => {
    const key = freshKey();
    const first = await claimKey(ctx(), { key, requestHash: hashA, retentionMs: 1_000, inProgressTtlMs: 60_000 });
    expect(first.outcome).toBe('acquired');
    // As if the retention had run out while the first holder still runs.
    await database.sql`update idempotency_keys set expires_at = now() - interval '1 second' where key = ${storedRawKey(key)}`;
    expect(await claimKey(ctx(), { key, requestHash: hashA })).toMatchObject({ outcome: 'in_progress' });
    expect(await deleteExpiredKeys(ctx())).toBe(0);
    if (first.outcome !== 'acquired') return;
    await completeKey(ctx(), { key, fencingToken: first.fencingToken, result: 'first holder' });
    expect(await claimKey(ctx(), { key, requestHash: hashA })).toMatchObject({
      outcome: 'replay',
      result: 'first holder',
    });
  });

  it('never lets retention turn an uncertain outcome into a new operation: it stays uncertain for a person', async () => {
    const key = freshKey();
    expect(
      await claimKey(ctx(), {
        key,
        requestHash: hashA,
        retentionMs: 1_000,
        inProgressTtlMs: 60_000,
        downstreamIdempotent: false,
      }),
    ).toMatchObject({ outcome: 'acquired' });
    // Its holder died long ago: the claim and the retention have both run out.
    await database.sql`update idempotency_keys set locked_until = now() - interval '2 days', expires_at = now() - interval '1 day' where key = ${storedRawKey(key)}`;
    expect(await claimKey(ctx(), { key, requestHash: hashA, downstreamIdempotent: false })).toMatchObject({
      outcome: 'uncertain',
    });
    expect(await deleteExpiredKeys(ctx())).toBe(0);
  });

  it("keeps a claim past its lock, and counts retention again from a settle, with the claim's own retention or its scope's", async () => {
    const own = freshKey();
    const claim = (await claimKey(ctx(), {
      key: own,
      requestHash: hashA,
      retentionMs: 5_000,
      inProgressTtlMs: 60_000,
    })) as { fencingToken: number };
    const [claimed] = await database.sql<{ retention_ms: string; retained_past_lock_ms: number }[]>`
      select retention_ms, extract(epoch from expires_at - locked_until) * 1000 as retained_past_lock_ms from idempotency_keys where key = ${storedRawKey(own)}`;
    expect(claimed?.retention_ms).toBe('5000');
    expect(Math.round(Number(claimed?.retained_past_lock_ms))).toBe(5_000);
    await failKey(ctx(), { key: own, fencingToken: claim.fencingToken, errorClass: 'transient', errorText: '503' });
    const legacy = freshKey();
    const legacyClaim = (await claimKey(ctx(), { key: legacy, requestHash: hashA, scope: 'api' })) as {
      fencingToken: number;
    };
    // A row from before retention_ms was kept falls back to its scope's retention (a day for api).
    await database.sql`update idempotency_keys set retention_ms = null where key = ${storedRawKey(legacy)}`;
    await completeKey(ctx(), { key: legacy, fencingToken: legacyClaim.fencingToken, result: null });

    const rows = await database.sql<{ key: string; retained_ms: number }[]>`
      select key, extract(epoch from expires_at - updated_at) * 1000 as retained_ms
      from idempotency_keys where key in (${storedRawKey(own)}, ${storedRawKey(legacy)})`;
    const retained = Object.fromEntries(rows.map((row) => [row.key, Math.round(Number(row.retained_ms))]));
    expect(retained).toEqual({ [storedRawKey(own)]: 5_000, [storedRawKey(legacy)]: 24 * 3_600_000 });
  });

  it('refuses bad input and writes nothing', async () => {
    const key = freshKey();
    await expect(claimKey(ctx(), { key, requestHash: '' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(claimKey(ctx(), { key: '  ', requestHash: hashA })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(claimKey(ctx(), { key, requestHash: hashA, inProgressTtlMs: -1 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    const [count] = await database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.key, storedRawKey(key)));
    expect(count?.n).toBe(0);
  });

  it('refuses an oversize result and a blank failure text', async () => {
    const key = freshKey();
    const { fencingToken } = (await claimKey(ctx(), { key, requestHash: hashA })) as { fencingToken: number };
    await expect(completeKey(ctx(), { key, fencingToken, result: 'x'.repeat(300 * 1024) })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(failKey(ctx(), { key, fencingToken, errorClass: 'transient', errorText: ' ' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    const [row] = await database.db
      .select()
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.key, storedRawKey(key)));
    expect(row?.status).toBe('in_progress');
  });
});

describe('claimKey cost', () => {
  it('is one statement, a single round trip, whatever the outcome', async () => {
    const statements: string[] = [];
    const counted = connectDatabase(database.url, {
      maxConnections: 1,
      logger: { logQuery: (query) => void statements.push(query) },
    });
    try {
      const key = freshKey();
      await claimKey({ db: counted.db }, { key, requestHash: hashA }); // acquired
      await claimKey({ db: counted.db }, { key, requestHash: hashA }); // in progress
      await expect(claimKey({ db: counted.db }, { key, requestHash: hashB })).rejects.toBeInstanceOf(
        KeyPayloadMismatchError,
      );
      expect(statements).toHaveLength(3);
      expect(statements.every((statement) => statement.startsWith('insert into "idempotency_keys"'))).toBe(true);
    } finally {
      await counted.close();
    }
  });
});

describe('claimKey under 64 concurrent claims', () => {
  it('acquires exactly once per round and runs the guarded side effect exactly once, over 200 rounds', async () => {
    const workers = 64;
    const rounds = 200;
    const pool = connectDatabase(database.url, { maxConnections: workers });
    try {
      await Promise.all(Array.from({ length: workers }, () => pool.sql`select 1`));
      for (let round = 0; round < rounds; round++) {
        const key = freshKey();
        let sideEffects = 0;
        const outcomes: ClaimOutcome['outcome'][] = await Promise.all(
          Array.from({ length: workers }, async () => {
            const claimed = await claimKey({ db: pool.db }, { key, requestHash: hashA });
            if (claimed.outcome === 'acquired') {
              sideEffects += 1;
              await completeKey({ db: pool.db }, { key, fencingToken: claimed.fencingToken, result: { round } });
            }
            return claimed.outcome;
          }),
        );
        expect(outcomes.filter((outcome) => outcome === 'acquired')).toHaveLength(1);
        expect(outcomes.every((outcome) => ['acquired', 'in_progress', 'replay'].includes(outcome))).toBe(true);
        expect(sideEffects).toBe(1);
      }
      const [calls] = await pool.sql<{ total: number }[]>`
        select sum(claim_calls)::int as total from idempotency_keys where result ? 'round'`;
      expect(calls?.total).toBe(workers * rounds);
    } finally {
      await pool.close();
    }
  }, 120_000);
});

describe('deleteExpiredKeys', () => {
  it('deletes settled keys past retention in batches and keeps the rest', async () => {
    const expired = Array.from({ length: 25 }, () => freshKey());
    for (const key of expired) {
      const { fencingToken } = (await claimKey(ctx(), { key, requestHash: hashA })) as { fencingToken: number };
      await completeKey(ctx(), { key, fencingToken, result: null });
    }
    const stillRunning = freshKey();
    await claimKey(ctx(), { key: stillRunning, requestHash: hashA });
    const kept = freshKey();
    await claimKey(ctx(), { key: kept, requestHash: hashA });
    await database.sql`update idempotency_keys set expires_at = now() - interval '1 minute'
      where key = any(${database.sql.array([...expired, stillRunning].map(storedRawKey))})`;

    const deleted = await deleteExpiredKeys(ctx(), 10);
    expect(deleted).toBeGreaterThanOrEqual(25);
    const left = await database.sql<
      { key: string }[]
    >`select key from idempotency_keys where key = any(${database.sql.array([...expired, stillRunning, kept].map(storedRawKey))})`;
    expect(left.map((row) => row.key).sort()).toEqual([kept, stillRunning].map(storedRawKey).sort());
  });
});

describe('settling after the claim expired', () => {
  it('refuses a late failure for a downstream that cannot deduplicate: the outcome stays uncertain', async () => {
    const key = freshKey();
    const claim = await claimKey(ctx(), {
      key,
      requestHash: hashA,
      downstreamIdempotent: false,
      inProgressTtlMs: 60_000,
    });
    if (claim.outcome !== 'acquired') throw new Error('expected acquired');
    await expireClaim(key);
    await expect(
      failKey(ctx(), { key, fencingToken: claim.fencingToken, errorClass: 'unknown', errorText: 'worker died' }),
    ).rejects.toMatchObject({
      code: 'STATE_CONFLICT',
    });
    const [row] = await database.db
      .select()
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.key, storedRawKey(key)));
    expect(row?.status).toBe('in_progress');
    expect(await claimKey(ctx(), { key, requestHash: hashA, downstreamIdempotent: false })).toMatchObject({
      outcome: 'uncertain',
    });
  });

  it('still takes a late failure where the downstream deduplicates, and a late success anywhere', async () => {
    const idempotent = freshKey();
    const first = await claimKey(ctx(), { key: idempotent, requestHash: hashA, inProgressTtlMs: 60_000 });
    if (first.outcome !== 'acquired') throw new Error('expected acquired');
    await expireClaim(idempotent);
    await failKey(ctx(), {
      key: idempotent,
      fencingToken: first.fencingToken,
      errorClass: 'transient',
      errorText: '503',
    });

    const risky = freshKey();
    const second = await claimKey(ctx(), {
      key: risky,
      requestHash: hashA,
      downstreamIdempotent: false,
      inProgressTtlMs: 60_000,
    });
    if (second.outcome !== 'acquired') throw new Error('expected acquired');
    await expireClaim(risky);
    await completeKey(ctx(), { key: risky, fencingToken: second.fencingToken, result: { sent: true } });
    expect(await claimKey(ctx(), { key: risky, requestHash: hashA, downstreamIdempotent: false })).toMatchObject({
      outcome: 'replay',
    });
  });
});
