import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { startDatabaseClock } from '../../../packages/engine/src/core';
import type { Executor } from '../../../packages/engine/src/db/client';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();
const HOUR_MS = 3_600_000;

async function databaseNowMs(): Promise<number> {
  const [row] = await database.db.execute<{ ms: number }>(
    sql`select (extract(epoch from clock_timestamp()) * 1000)::float8 as ms`,
  );
  return Number(row!.ms);
}

describe('the database clock', () => {
  it("tells the database's time on a machine whose own clock is an hour slow", async () => {
    const clock = startDatabaseClock(() => database.db, { machineNow: () => Date.now() - HOUR_MS });
    try {
      const syncStartedAt = performance.now();
      await clock.sync();
      // The offset's error is at most half the sample's round trip, and that round trip is inside this wait.
      const sampleErrorBoundMs = performance.now() - syncStartedAt;
      expect(clock.offsetMs()).toBeGreaterThan(HOUR_MS - 1_000);
      expect(clock.offsetMs()).toBeLessThan(HOUR_MS + 1_000);
      const before = await databaseNowMs();
      const told = clock.now().getTime();
      const after = await databaseNowMs();
      // Between two readings of the database's clock, give or take the sample's error.
      expect(told).toBeGreaterThanOrEqual(before - sampleErrorBoundMs - 5);
      expect(told).toBeLessThanOrEqual(after + sampleErrorBoundMs + 5);
    } finally {
      clock.stop();
    }
  });

  it('keeps the last offset while the database cannot be read, and follows a replaced pool', async () => {
    let current: Executor = database.db;
    const clock = startDatabaseClock(() => current, { machineNow: () => Date.now() + HOUR_MS });
    try {
      await clock.sync();
      const offset = clock.offsetMs();
      expect(offset).toBeLessThan(-HOUR_MS + 1_000);

      current = {
        execute: () => Promise.reject(new Error('connection refused')),
      } as unknown as Executor;
      await expect(clock.sync()).rejects.toThrow('connection refused');
      expect(clock.offsetMs()).toBe(offset);

      current = database.db;
      await clock.sync();
      expect(Math.abs(clock.offsetMs() - offset)).toBeLessThan(1_000);
    } finally {
      clock.stop();
    }
  });
});
