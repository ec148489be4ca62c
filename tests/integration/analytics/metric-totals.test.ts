import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { recordAttempt, type CoreContext } from '../../../packages/engine/src/core';
import { attempts } from '../../../packages/engine/src/db/schema';
import { rollUpAttempts } from '../../../packages/engine/src/rollups/roll-up';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();

/** A closed hour the tests report into, and a clock an hour and ten minutes after it began. */
const HOUR = '2026-10-05T09:00:00Z';
const now = new Date('2026-10-05T10:10:00Z');
const ctx = (): CoreContext => ({ db: database.db, clock: () => now });
const at = (minute: number) => new Date(new Date(HOUR).getTime() + minute * 60_000);
const roll = () => rollUpAttempts(database.db, { now, retentionFloor: new Date('2026-09-20T00:00:00Z') });

async function report(agent: string, overrides: Partial<Parameters<typeof recordAttempt>[1]> = {}) {
  await recordAttempt(ctx(), {
    taskId: `totals-${randomUUID()}`,
    agent,
    step: 'fetch',
    attemptNumber: 1,
    startedAt: at(5),
    finishedAt: at(6),
    outcome: 'succeeded',
    costMicros: 100,
    ...overrides,
  });
}

async function totalsOf(agent: string) {
  const [row] = await database.db.execute<{ attempts: string; retries: string; cost: string; retry_cost: string }>(sql`
    select attempts::text, retries::text, cost_micros::text as cost, retry_cost_micros::text as retry_cost
    from attempt_totals where agent = ${agent} and step = 'fetch'`);
  const failures = await database.db.execute<{ error_class: string; failures: string }>(sql`
    select error_class, failures::text from failure_totals where agent = ${agent} and step = 'fetch' order by error_class`);
  return {
    attempts: Number(row?.attempts ?? 0),
    retries: Number(row?.retries ?? 0),
    cost: Number(row?.cost ?? 0),
    retryCost: Number(row?.retry_cost ?? 0),
    failures: Object.fromEntries(failures.map((entry) => [entry.error_class, Number(entry.failures)])),
  };
}

describe('running totals kept by the rollup pass', () => {
  it('a rolled hour adds its sums once; re-rolled for a late row and a finished attempt, it adds only its increase', async () => {
    const agent = `totals-${randomUUID().slice(0, 8)}`;
    await report(agent);
    // A failed retry: its own cost is retry spend.
    await report(agent, {
      attemptNumber: 2,
      outcome: 'failed',
      errorClass: 'transient',
      errorText: '503 from downstream',
      costMicros: 250,
    });
    await report(agent, { outcome: 'failed', errorClass: 'timeout', errorText: 'no answer in 30 s', costMicros: 50 });
    // A running attempt, as beginStep records one: counted as an attempt now, as a failure once it fails.
    const runningTask = `totals-running-${randomUUID()}`;
    await database.db.insert(attempts).values({
      taskId: runningTask,
      agent,
      step: 'fetch',
      attemptNumber: 1,
      startedAt: at(30),
      outcome: 'running',
      costMicros: 0,
    });

    await roll();
    expect(await totalsOf(agent)).toEqual({
      attempts: 4,
      retries: 1,
      cost: 400,
      retryCost: 250,
      failures: { timeout: 1, transient: 1 },
    });

    // Nothing changed: a second pass adds nothing.
    await roll();
    expect((await totalsOf(agent)).attempts).toBe(4);

    // A late report for the closed hour, and the running attempt failing: the next pass re-rolls the hour.
    await report(agent, { startedAt: at(40), finishedAt: at(41), costMicros: 10 });
    await database.db.execute(sql`
      update attempts set outcome = 'failed', error_class = 'transient', error_text = 'reset', finished_at = ${at(35).toISOString()}::timestamptz,
        latency_ms = 300000, cost_micros = 70
      where task_id = ${runningTask}`);
    const pass = await roll();
    expect(pass.hoursReRolled).toBe(1);
    expect(await totalsOf(agent)).toEqual({
      attempts: 5,
      retries: 1,
      cost: 480,
      retryCost: 250,
      failures: { timeout: 1, transient: 2 },
    });
  });

  it('an hour re-rolled with less than it had (rows gone some other way) leaves the totals where they were', async () => {
    const agent = `shrink-${randomUUID().slice(0, 8)}`;
    await report(agent);
    await report(agent, { outcome: 'failed', errorClass: 'permanent', errorText: 'bad request', costMicros: 5 });
    await roll();
    const counted = await totalsOf(agent);
    expect(counted).toEqual({ attempts: 2, retries: 0, cost: 105, retryCost: 0, failures: { permanent: 1 } });

    // Rows deleted behind the pass's back, then every kept hour rolled afresh (the restore path):
    // the hour's rollups shrink, the totals do not.
    await database.db.execute(sql`delete from attempts where agent = ${agent} and outcome = 'failed'`);
    await database.db.execute(sql`update rollup_state set processed_xid = '900000000000'::xid8`);
    await roll();
    const [rolled] = await database.db.execute<{ attempts: string }>(sql`
      select sum(attempts)::text as attempts from attempt_rollups where grain = 'hour' and agent = ${agent}`);
    expect(Number(rolled?.attempts)).toBe(1);
    expect(await totalsOf(agent)).toEqual(counted);
    await database.db.execute(sql`update rollup_state set processed_xid = pg_snapshot_xmin(pg_current_snapshot())`);
  });
});
