import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { timeBucket, withLease } from '../../../packages/engine/src/core/leases/leases';
import { writeAudit } from '../../../packages/engine/src/core/audit/audit-log';
import { connectDatabase } from '../../../packages/engine/src/db/client';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();

describe('audit_log', () => {
  it('refuses UPDATE, DELETE and TRUNCATE at the database', async () => {
    const record = await writeAudit(
      database.db,
      { type: 'person', id: 'a@example.com', role: 'admin', teams: [] },
      {
        action: 'hold.clear.resume',
        targetType: 'hold',
        targetId: '1',
        reason: 'test',
        before: { status: 'open' },
        after: { status: 'cleared' },
      },
    );
    await expect(database.sql`update audit_log set reason = 'rewritten' where id = ${record.id}`).rejects.toThrow(
      /append-only: UPDATE/,
    );
    await expect(database.sql`delete from audit_log where id = ${record.id}`).rejects.toThrow(/append-only: DELETE/);
    await expect(database.sql`truncate audit_log`).rejects.toThrow(/append-only: TRUNCATE/);
    const [kept] = await database.sql`select reason from audit_log where id = ${record.id}`;
    expect(kept?.reason).toBe('test');
  });
});

describe('withLease', () => {
  it('does one pass when many fires race for the same bucket', async () => {
    const job = `sweep-${randomUUID()}`;
    const pool = connectDatabase(database.url, { maxConnections: 12 });
    let passes = 0;
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 12 }, () =>
          withLease({ db: pool.db }, { job, bucket: '2026-11-30T03:00:00.000Z' }, async () => {
            passes += 1;
            return 'swept';
          }),
        ),
      );
      expect(passes).toBe(1);
      expect(outcomes.filter((outcome) => outcome.ran)).toEqual([{ ran: true, value: 'swept' }]);
    } finally {
      await pool.close();
    }
    const next = await withLease(
      { db: database.db },
      { job, bucket: '2026-11-30T04:00:00.000Z' },
      async () => 'next hour',
    );
    expect(next).toEqual({ ran: true, value: 'next hour' });
  });

  it('lets a later fire redo a bucket whose holder died before finishing, after the TTL', async () => {
    const job = `sweep-${randomUUID()}`;
    const bucket = 'b1';
    await expect(
      withLease({ db: database.db }, { job, bucket }, async () => {
        throw new Error('crash');
      }),
    ).rejects.toThrow('crash');
    expect(await withLease({ db: database.db }, { job, bucket }, async () => 'too soon')).toEqual({ ran: false });
    await database.sql`update leases set expires_at = now() - interval '1 second' where job = ${job}`;
    expect(await withLease({ db: database.db }, { job, bucket }, async () => 'redone')).toEqual({
      ran: true,
      value: 'redone',
    });
  });

  it('names buckets by the start of their period', () => {
    expect(timeBucket(new Date('2026-11-30T03:47:12Z'), 3_600_000)).toBe('2026-11-30T03:00:00.000Z');
  });
});
