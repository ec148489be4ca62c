import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { attempts } from '../../../packages/engine/src/db/schema';
import { rollUpAttempts } from '../../../packages/engine/src/rollups/roll-up';
import { useTestDatabase } from '../../support/test-database';

/**
 * The rollup pass takes in late rows up to the oldest transaction of its own
 * database still running, not of the whole cluster: a long transaction in
 * another database on the same PostgreSQL (another application; test files
 * side by side) does not hold back the figures here.
 */
const database = useTestDatabase();
const neighbour = useTestDatabase();

const HOUR = 3_600_000;
const passAt = new Date('2026-11-30T12:07:30Z');
const retentionFloor = new Date(passAt.getTime() - 10 * 24 * HOUR);
const lateHour = new Date(passAt.getTime() - 3 * HOUR);

async function insertLateRow(): Promise<void> {
  await database.db.insert(attempts).values({
    taskId: `late-${randomUUID()}`,
    agent: 'outreach',
    step: 'draft',
    attemptNumber: 1,
    startedAt: lateHour,
    finishedAt: new Date(lateHour.getTime() + 200),
    latencyMs: 200,
    outcome: 'succeeded',
    costMicros: 1_000,
  });
}

async function rolledAttemptsInLateHour(): Promise<number> {
  const hourStart = new Date(Math.floor(lateHour.getTime() / HOUR) * HOUR);
  const [row] = await database.db.execute<{ attempts: string | null }>(sql`
    select sum(attempts)::text as attempts from attempt_rollups
    where grain = 'hour' and bucket_start = ${hourStart.toISOString()}::timestamptz`);
  return Number(row?.attempts ?? 0);
}

/** Runs `hold` inside a transaction that has written (so it has an id), then ends it. */
async function whileWriting(connection: typeof database, hold: () => Promise<void>): Promise<void> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let begun!: () => void;
  const hasBegun = new Promise<void>((resolve) => (begun = resolve));
  const open = connection.sql.begin(async (tx) => {
    await tx`select pg_current_xact_id()`;
    begun();
    await released;
  });
  await hasBegun;
  try {
    await hold();
  } finally {
    release();
    await open;
  }
}

describe('the rollup pass horizon', () => {
  it("takes in a late row while another database's transaction is running, but not while one of its own is", async () => {
    await insertLateRow();
    await rollUpAttempts(database.db, { now: passAt, retentionFloor });
    expect(await rolledAttemptsInLateHour()).toBe(1);

    // Another database's transaction began before the late row: the next pass takes the row in regardless.
    await whileWriting(neighbour, async () => {
      await insertLateRow();
      const pass = await rollUpAttempts(database.db, { now: passAt, retentionFloor });
      expect(pass.hoursReRolled).toBe(1);
      expect(await rolledAttemptsInLateHour()).toBe(2);
    });

    // This database's transaction began before the late row: the row may be one of its kind, so it waits.
    await whileWriting(database, async () => {
      await insertLateRow();
      const pass = await rollUpAttempts(database.db, { now: passAt, retentionFloor });
      expect(pass.hoursReRolled).toBe(0);
      expect(await rolledAttemptsInLateHour()).toBe(2);
    });
    const pass = await rollUpAttempts(database.db, { now: passAt, retentionFloor });
    expect(pass.hoursReRolled).toBe(1);
    expect(await rolledAttemptsInLateHour()).toBe(3);
  });
});
