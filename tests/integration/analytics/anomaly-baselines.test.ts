import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { attempts } from '../../../packages/engine/src/db/schema';
import {
  BASELINE_DAYS,
  baselineEndFor,
  refreshBaselines,
} from '../../../packages/engine/src/rollups/anomaly-baselines';
import { rollUpAttempts } from '../../../packages/engine/src/rollups/roll-up';
import { useTestDatabase } from '../../support/test-database';

/**
 * The anomaly rule's stored baseline (each step's retry share of spend on each of the 7 days before its end)
 * is moved by the hour each time the hour turns, not summed afresh from a week of hourly rows. Over hour turns
 * with late rows inside the baseline and a UTC midnight, the stored day sums and shares must equal a recount
 * from the raw log.
 */
const database = useTestDatabase();

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
/** 20 minutes into an hour 20:00 UTC, so the fourth hour turn below crosses a UTC midnight for the baseline's end. */
const firstNow = new Date('2026-11-20T20:20:00Z').getTime();
const floor = new Date(firstNow - 20 * DAY_MS);
const steps = [
  ['outreach', 'draft'],
  ['outreach', 'send'],
  ['payments', 'charge'],
] as const;

let taskNumber = 0;
let seed = 11;
const nextRandom = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
const pick = (below: number) => Math.floor(nextRandom() * below);

type NewAttempt = typeof attempts.$inferInsert;
function attemptAt(at: number): NewAttempt {
  const [agent, step] = steps[pick(steps.length)]!;
  return {
    taskId: `baseline-${(taskNumber += 1)}`,
    agent,
    step,
    attemptNumber: 1 + pick(3),
    startedAt: new Date(at),
    finishedAt: new Date(at + 1_000),
    latencyMs: 1_000,
    outcome: 'succeeded',
    // Some attempts free: a day's share is 0 when it spent nothing.
    costMicros: pick(4) === 0 ? 0 : pick(20_000),
  };
}

async function insertAll(rows: NewAttempt[]) {
  for (let index = 0; index < rows.length; index += 500) {
    await database.db.insert(attempts).values(rows.slice(index, index + 500));
  }
}

/** The day sums and shares a baseline ending at `end` holds, recounted from the raw log. */
async function recount(end: Date) {
  const at = sql`${end.toISOString()}::timestamptz`;
  const days = await database.db.execute<Record<string, string>>(sql`
    select agent, step, ((extract(epoch from ${at} - date_trunc('hour', started_at, 'UTC'))::bigint / 3600 - 1) / 24)::text as day,
      count(*)::text as attempts, sum(cost_micros)::text as cost_micros,
      coalesce(sum(retry_cost_micros), 0)::text as retry_cost_micros
    from attempts
    where started_at >= ${at} - ${BASELINE_DAYS} * interval '1 day' and started_at < ${at}
    group by 1, 2, 3 order by 1, 2, 3`);
  const shares = new Map<string, number[]>();
  for (const day of [...days].sort((a, b) => Number(b.day) - Number(a.day))) {
    const key = `${day.agent}/${day.step}`;
    const cost = Number(day.cost_micros);
    shares.set(key, [...(shares.get(key) ?? []), cost === 0 ? 0 : Number(day.retry_cost_micros) / cost]);
  }
  return { days: [...days], shares: Object.fromEntries(shares) };
}

async function stored() {
  const days = await database.db.execute<Record<string, string>>(sql`
    select agent, step, day::text, attempts::text, cost_micros::text, retry_cost_micros::text
    from anomaly_baseline_days order by 1, 2, 3`);
  const shares = await database.db.execute<{ agent: string; step: string; shares: number[] }>(
    sql`select agent, step, shares from anomaly_baselines`,
  );
  const [state] = await database.db.execute<{ baseline_end: Date; baseline_days_end: Date }>(
    sql`select (state->>'sharesEnd')::timestamptz as baseline_end, (state->>'daysEnd')::timestamptz as baseline_days_end
      from rollup_family_state where family = 'baselines'`,
  );
  return {
    days: [...days],
    shares: Object.fromEntries(shares.map((row) => [`${row.agent}/${row.step}`, row.shares.map(Number)])),
    ends: [new Date(state!.baseline_end).getTime(), new Date(state!.baseline_days_end).getTime()],
  };
}

describe('the anomaly baseline', () => {
  it('is moved hour by hour to exactly what the raw log says, late rows and a midnight included', async () => {
    // About one attempt every 12 minutes for 10 days.
    await insertAll(
      Array.from({ length: 10 * 120 }, (_, index) => attemptAt(firstNow - 10 * DAY_MS + index * 12 * MINUTE_MS)).filter(
        (row) => row.startedAt!.getTime() < firstNow,
      ),
    );
    await rollUpAttempts(database.db, { now: new Date(firstNow), retentionFloor: floor });

    let now = firstNow;
    for (let turn = 1; turn <= 6; turn += 1) {
      const fresh = Array.from({ length: 5 }, (_, index) => attemptAt(now + index * 10 * MINUTE_MS));
      // A late row in the baseline's third day: that pass sums the baseline afresh.
      const late = turn === 2 ? [attemptAt(now - 3 * DAY_MS)] : [];
      now += HOUR_MS;
      await insertAll([...fresh.filter((row) => row.startedAt!.getTime() < now), ...late]);
      await rollUpAttempts(database.db, { now: new Date(now), retentionFloor: floor });

      const end = baselineEndFor(new Date(Math.floor(now / HOUR_MS) * HOUR_MS));
      const held = await stored();
      const expected = await recount(end);
      expect(held.ends, `turn ${turn}`).toEqual([end.getTime(), end.getTime()]);
      expect(held.days, `turn ${turn}`).toEqual(expected.days);
      expect(Object.keys(held.shares).sort(), `turn ${turn}`).toEqual(Object.keys(expected.shares).sort());
      for (const [key, shares] of Object.entries(expected.shares)) {
        expect(held.shares[key]!.length, `turn ${turn} ${key}`).toBe(shares.length);
        for (const [day, share] of shares.entries()) expect(held.shares[key]![day]).toBeCloseTo(share, 12);
      }
    }
  });

  it('is moved from the day sums held, and summed afresh when a late row lands in it', async () => {
    // A mark put on one held day sum (one extra attempt) is carried by a move: proof the pass moved it.
    const [marked] = await database.db.execute<{ agent: string; step: string; day: number }>(sql`
      update anomaly_baseline_days set attempts = attempts + 1
      where ctid = (select ctid from anomaly_baseline_days where day = 3 limit 1)
      returning agent, step, day`);
    const markedDay = async () => {
      const [row] = await database.db.execute<{ attempts: string }>(sql`
        select attempts::text from anomaly_baseline_days
        where agent = ${marked!.agent} and step = ${marked!.step} and day = ${marked!.day}`);
      return Number(row!.attempts);
    };
    const [state] = await database.db.execute<{ rolled_to: Date }>(sql`select rolled_to from rollup_state`);
    let edge = new Date(state!.rolled_to).getTime();
    const turn = async (late: NewAttempt[]) => {
      await insertAll([attemptAt(edge + 10 * MINUTE_MS), ...late]);
      edge += HOUR_MS;
      await rollUpAttempts(database.db, { now: new Date(edge + 20_000), retentionFloor: floor });
      const end = baselineEndFor(new Date(edge));
      const expected = (await recount(end)).days.find(
        (day) => day.agent === marked!.agent && day.step === marked!.step && Number(day.day) === marked!.day,
      );
      return { held: await markedDay(), recounted: Number(expected?.attempts ?? 0) };
    };

    const moved = await turn([]);
    expect(moved.held - moved.recounted).toBe(1);
    const afresh = await turn([attemptAt(edge - 2 * DAY_MS)]);
    expect(afresh.held).toBe(afresh.recounted);
  });

  it('ending at a UTC midnight, is summed from the daily rollups', async () => {
    // A mark put on one daily rollup row (one extra attempt) shows in the day sums summed afresh for a baseline
    // ending at midnight: proof they were read from the days, not the hours. Undone after.
    const [state] = await database.db.execute<{ rolled_to: Date }>(sql`select rolled_to from rollup_state`);
    const midnight = new Date(Math.floor((new Date(state!.rolled_to).getTime() - DAY_MS) / DAY_MS) * DAY_MS);
    const at = sql`${midnight.toISOString()}::timestamptz`;
    let result: { held: number; recounted: number } | undefined;
    await database.db
      .transaction(async (tx) => {
        const [marked] = await tx.execute<{ agent: string; step: string; day: number }>(sql`
          update attempt_rollups set attempts = attempts + 1
          where ctid = (select ctid from attempt_rollups
            where grain = 'day' and bucket_start = ${at} - interval '3 days' limit 1)
          returning agent, step, 2 as day`);
        await refreshBaselines(tx, { shares: null, days: null }, midnight, []);
        const [held] = await tx.execute<{ attempts: string }>(sql`
          select attempts::text from anomaly_baseline_days
          where agent = ${marked!.agent} and step = ${marked!.step} and day = ${marked!.day}`);
        const recounted = (await recount(midnight)).days.find(
          (day) => day.agent === marked!.agent && day.step === marked!.step && Number(day.day) === marked!.day,
        );
        result = { held: Number(held!.attempts), recounted: Number(recounted!.attempts) };
        throw new Error('undo');
      })
      .catch((error: Error) => {
        if (error.message !== 'undo') throw error;
      });
    expect(result!.held - result!.recounted).toBe(1);
  });
});
