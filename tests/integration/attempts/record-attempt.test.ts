import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { AttemptConflictError, InvalidInputError, recordAttempt } from '../../../packages/engine/src/core';
import { connectDatabase } from '../../../packages/engine/src/db/client';
import { attempts } from '../../../packages/engine/src/db/schema';
import { aFailedAttempt, anAttempt } from '../../support/attempt-factory';
import { backendPid, untilBlockedBy } from '../../support/lock-waits';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();
/** The factory's attempts start on 2026-11-20: the library judges their age by this clock, not the machine's. */
const clock = () => new Date('2026-11-30T12:00:00Z');

async function countAttempts(taskId: string): Promise<number> {
  const [row] = await database.db
    .select({ count: sql<number>`count(*)::int` })
    .from(attempts)
    .where(eq(attempts.taskId, taskId));
  return row?.count ?? 0;
}

describe('recordAttempt', () => {
  it('stores a failed attempt with its class, text, cost and derived latency', async () => {
    const input = aFailedAttempt({
      attemptNumber: 2,
      errorClass: 'rate_limited',
      errorText: '429 slow down',
      costMicros: 4_321,
      idempotencyKey: 'k-1',
    });
    const { attempt, duplicate } = await recordAttempt({ db: database.db, clock }, input);

    expect(duplicate).toBe(false);
    const [stored] = await database.db.select().from(attempts).where(eq(attempts.id, attempt.id));
    expect(stored).toMatchObject({
      taskId: input.taskId,
      attemptNumber: 2,
      outcome: 'failed',
      errorClass: 'rate_limited',
      errorText: '429 slow down',
      costMicros: 4_321,
      latencyMs: 1_250,
      idempotencyKey: 'k-1',
    });
  });

  it('rejects a failed attempt with a blank error text and writes nothing', async () => {
    const input = aFailedAttempt({ errorText: '   ' });
    const failure = recordAttempt({ db: database.db, clock }, input);

    await expect(failure).rejects.toBeInstanceOf(InvalidInputError);
    await expect(failure).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { errorText: [expect.stringContaining('blank')] },
    });
    expect(await countAttempts(input.taskId)).toBe(0);
  });

  it('is refused by the database too, for writers that bypass the library', async () => {
    const write = database.sql`
      insert into attempts (task_id, agent, step, attempt_number, started_at, finished_at, latency_ms, outcome, error_class, error_text)
      values ('raw-task', 'a', 's', 1, now(), now(), 0, 'failed', 'transient', ' ')`;
    await expect(write).rejects.toMatchObject({ constraint_name: 'attempts_failure_is_explained' });
  });

  it('returns the stored attempt for a redelivered identical report', async () => {
    const input = anAttempt();
    const first = await recordAttempt({ db: database.db, clock }, input);
    const second = await recordAttempt(
      { db: database.db, clock },
      { ...input, startedAt: new Date(input.startedAt).toISOString() },
    );

    expect(second).toEqual({ attempt: first.attempt, duplicate: true });
    expect(await countAttempts(input.taskId)).toBe(1);
  });

  it('refuses a second report of the same attempt with different content, keeping the first', async () => {
    const input = anAttempt({ costMicros: 100 });
    await recordAttempt({ db: database.db, clock }, input);

    const conflicting = recordAttempt({ db: database.db, clock }, { ...input, costMicros: 999 });
    await expect(conflicting).rejects.toBeInstanceOf(AttemptConflictError);
    await expect(conflicting).rejects.toThrow(/costMicros/);
    const [stored] = await database.db.select().from(attempts).where(eq(attempts.taskId, input.taskId));
    expect(stored?.costMicros).toBe(100);
  });

  it('records exactly one row when 20 connections report the same attempt at once', async () => {
    const input = anAttempt();
    const connections = Array.from({ length: 20 }, () => connectDatabase(database.url, { maxConnections: 1 }));
    try {
      // Open every connection first so the reports really race.
      await Promise.all(connections.map((connection) => connection.sql`select 1`));
      const results = await Promise.all(
        connections.map((connection) => recordAttempt({ db: connection.db, clock }, input)),
      );

      expect(results.filter((result) => !result.duplicate)).toHaveLength(1);
      expect(results.filter((result) => result.duplicate)).toHaveLength(19);
      expect(new Set(results.map((result) => result.attempt.id)).size).toBe(1);
      expect(await countAttempts(input.taskId)).toBe(1);
    } finally {
      await Promise.all(connections.map((connection) => connection.close()));
    }
  });

  it('records exactly one row when 20 connections report one attempt with 20 different start times (and partitions)', async () => {
    const base = anAttempt();
    const connections = Array.from({ length: 20 }, () => connectDatabase(database.url, { maxConnections: 1 }));
    try {
      await Promise.all(connections.map((connection) => connection.sql`select 1`));
      // Start times a day apart: the reports would land in different daily partitions.
      const results = await Promise.allSettled(
        connections.map((connection, index) => {
          const startedAt = new Date(Date.UTC(2026, 10, 1 + index, 12));
          return recordAttempt(
            { db: connection.db, clock },
            { ...base, startedAt, finishedAt: new Date(startedAt.getTime() + 500) },
          );
        }),
      );
      const recorded = results.filter((result) => result.status === 'fulfilled');
      const refused = results.filter((result) => result.status === 'rejected');
      expect(recorded).toHaveLength(1);
      expect(refused).toHaveLength(19);
      for (const result of refused) expect(result.reason).toBeInstanceOf(AttemptConflictError);
      expect(await countAttempts(base.taskId)).toBe(1);
    } finally {
      await Promise.all(connections.map((connection) => connection.close()));
    }
  });

  it('refuses a report with another start while the first report of the attempt is still uncommitted', async () => {
    const base = anAttempt();
    const other = connectDatabase(database.url, { maxConnections: 1 });
    try {
      const secondPid = await backendPid(other.sql);
      let second: Promise<unknown> | undefined;
      await database.db.transaction(async (tx) => {
        await recordAttempt({ db: tx, clock }, base); // first report, not yet committed
        const [first] = await tx.execute<{ pid: number }>(sql`select pg_backend_pid() as pid`);
        const startedAt = new Date(base.startedAt as Date);
        startedAt.setUTCDate(startedAt.getUTCDate() + 3);
        second = recordAttempt(
          { db: other.db, clock },
          { ...base, startedAt, finishedAt: new Date(startedAt.getTime() + 500) },
        );
        second.catch(() => {}); // observed below, after the first commits
        // The second report really waits on the first one's uncommitted row before the first commits.
        await untilBlockedBy(database.sql, secondPid, first!.pid);
      });
      await expect(second).rejects.toBeInstanceOf(AttemptConflictError);
      expect(await countAttempts(base.taskId)).toBe(1);
    } finally {
      await other.close();
    }
  });

  it('joins a transaction it is given, so a rollback removes the attempt', async () => {
    const input = anAttempt();
    await expect(
      database.db.transaction(async (tx) => {
        await recordAttempt({ db: tx, clock }, input);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await countAttempts(input.taskId)).toBe(0);
  });

  it.each([
    ['more than 30 days ago (the raw retention)', '2026-10-30T11:00:00Z', /must be within the last 30 days/],
    ['more than 5 minutes ahead', '2026-11-30T12:06:00Z', /must not be more than 5 minutes in the future/],
  ])('refuses an attempt that started %s, naming startedAt, and writes nothing', async (_case, start, message) => {
    const startedAt = new Date(start);
    const input = anAttempt({ startedAt, finishedAt: new Date(startedAt.getTime() + 1_000) });
    const refusal = recordAttempt({ db: database.db, clock }, input);
    await expect(refusal).rejects.toBeInstanceOf(InvalidInputError);
    await expect(recordAttempt({ db: database.db, clock }, input)).rejects.toMatchObject({
      fieldErrors: { startedAt: [expect.stringMatching(message)] },
    });
    expect(await countAttempts(input.taskId)).toBe(0);
  });

  it('takes the retention from ctx.policy, and accepts attempts within it and a little clock skew', async () => {
    const tenDaysAgo = new Date('2026-11-20T12:00:00Z');
    const old = anAttempt({ startedAt: tenDaysAgo, finishedAt: new Date(tenDaysAgo.getTime() + 500) });
    await expect(
      recordAttempt({ db: database.db, clock, policy: { attemptRetentionMs: 7 * 86_400_000 } }, old),
    ).rejects.toMatchObject({
      fieldErrors: { startedAt: [expect.stringMatching(/within the last 7 days/)] },
    });
    await expect(recordAttempt({ db: database.db, clock }, old)).resolves.toMatchObject({ duplicate: false });
    const skewed = new Date('2026-11-30T12:04:00Z');
    await expect(
      recordAttempt(
        { db: database.db, clock },
        anAttempt({ startedAt: skewed, finishedAt: new Date(skewed.getTime() + 500) }),
      ),
    ).resolves.toMatchObject({ duplicate: false });
  });

  it('refuses an attempt number beyond its column and a NUL in any text, as INVALID_INPUT (never a 500)', async () => {
    await expect(
      recordAttempt({ db: database.db, clock }, anAttempt({ attemptNumber: 3_000_000_000 })),
    ).rejects.toBeInstanceOf(InvalidInputError);
    const nul = aFailedAttempt({ errorText: 'bad\u0000byte' });
    await expect(recordAttempt({ db: database.db, clock }, nul)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { errorText: [expect.stringContaining('NUL')] },
    });
    expect(await countAttempts(nul.taskId)).toBe(0);
  });
});
