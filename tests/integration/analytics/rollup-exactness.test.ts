import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { ensureAttemptPartitions } from '../../../packages/engine/src/db/attempt-partitions';
import { attempts, errorClasses, type ErrorClass } from '../../../packages/engine/src/db/schema';
import { getStepAnomalies } from '../../../lib/queries/anomalies';
import { getOverview } from '../../../lib/queries/overview';
import { getStepDetail } from '../../../lib/queries/step-detail';
import { getStepStats } from '../../../lib/queries/step-stats';
import { latencyBucketSql, latencyOfBucket } from '../../../packages/engine/src/rollups/latency-buckets';
import { planFigures } from '../../../packages/engine/src/rollups/figures';
import { rollUpAttempts } from '../../../packages/engine/src/rollups/roll-up';
import { resolveTimeWindow } from '@holdfast/protocol/time-window';
import { useTestDatabase } from '../../support/test-database';

/**
 * The rollups must give the same figures as the raw log, to the micro-dollar.
 * Attempts are generated over three days, with retries that cross hour
 * boundaries, attempts still running when their hour is rolled up, rows that
 * arrive late for closed hours, and one late row whose transaction is still
 * open while the sweep runs. Every read model is then compared with an
 * independent recount from raw rows, over random windows.
 */
const database = useTestDatabase();

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
const start = new Date('2026-10-01T00:00:00Z').getTime();
/** The moment the test's sweeps and reads happen: midway through the third day's 12:00 hour. */
const now = new Date(start + 2 * DAY_MS + 12 * HOUR_MS + 31 * MINUTE_MS);

function randomSource(seed: number) {
  let state = seed;
  const next = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  return {
    next,
    int: (below: number) => Math.floor(next() * below),
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!,
  };
}

type NewAttempt = typeof attempts.$inferInsert;
const steps = [
  ['outreach', 'draft'],
  ['outreach', 'send'],
  ['payments', 'charge'],
  ['research', 'search'],
  ['research', 'summarise'],
] as const;
const failing: ErrorClass[] = errorClasses.filter((errorClass) => errorClass !== 'permanent');

/** One task: attempts one to four of a step, a few minutes apart, so retries often cross an hour. */
function generateTask(
  random: ReturnType<typeof randomSource>,
  taskId: string,
  from: number,
  span: number,
): NewAttempt[] {
  const [agent, step] = random.pick(steps);
  const tries = 1 + random.int(4);
  let at = from + random.int(span);
  const rows: NewAttempt[] = [];
  for (let attemptNumber = 1; attemptNumber <= tries; attemptNumber += 1) {
    const latencyMs = Math.round(Math.exp(random.next() * 10));
    const failed = attemptNumber < tries || random.next() < 0.1;
    const errorClass = failed ? random.pick(failing) : null;
    rows.push({
      taskId,
      agent,
      step,
      attemptNumber,
      startedAt: new Date(at),
      finishedAt: new Date(at + latencyMs),
      latencyMs,
      outcome: failed ? 'failed' : 'succeeded',
      errorClass,
      errorText: failed ? `${errorClass} from the downstream` : null,
      // Up to about $40 a call: sums pass 2^32 micro-dollars quickly.
      costMicros: random.int(40_000_000),
    });
    at += (2 + random.int(25)) * MINUTE_MS;
  }
  return rows;
}

async function insertAll(rows: NewAttempt[]) {
  for (let index = 0; index < rows.length; index += 500)
    await database.db.insert(attempts).values(rows.slice(index, index + 500));
}

/** The reference: figures per step straight from raw rows, with nearest-rank latency percentiles and their buckets. */
async function recount(from: Date, to: Date) {
  const rows = await database.db.execute<Record<string, string | null>>(sql`
    select agent, step, count(*) as attempts, count(*) filter (where attempt_number > 1) as retries,
      count(*) filter (where outcome = 'failed') as failures,
      count(*) filter (where attempt_number = 1) as executions,
      count(*) filter (where attempt_number = 1 and outcome = 'succeeded') as first_try,
      coalesce(sum(cost_micros), 0) as spend, coalesce(sum(retry_cost_micros), 0) as retry_spend,
      ${sql.raw(latencyBucketSql('percentile_disc(0.5) within group (order by latency_ms)'))} as p50_bucket,
      ${sql.raw(latencyBucketSql('percentile_disc(0.95) within group (order by latency_ms)'))} as p95_bucket
    from attempts where started_at >= ${from.toISOString()}::timestamptz and started_at < ${to.toISOString()}::timestamptz
    group by agent, step`);
  const classes = await database.db.execute<{
    agent: string;
    step: string;
    error_class: ErrorClass;
    failures: string;
  }>(sql`
    select agent, step, error_class, count(*) as failures from attempts
    where outcome = 'failed' and started_at >= ${from.toISOString()}::timestamptz and started_at < ${to.toISOString()}::timestamptz
    group by agent, step, error_class`);
  return rows
    .map((row) => {
      const byClass = Object.fromEntries(
        classes
          .filter((entry) => entry.agent === row.agent && entry.step === row.step)
          .map((entry) => [entry.error_class, Number(entry.failures)]),
      );
      const attemptsCount = Number(row.attempts);
      const spend = Number(row.spend);
      return {
        agent: row.agent,
        step: row.step,
        attempts: attemptsCount,
        retries: Number(row.retries),
        failures: Number(row.failures),
        totalSpendMicros: spend,
        retrySpendMicros: Number(row.retry_spend),
        retryRate: Number(row.retries) / attemptsCount,
        retryShareOfSpend: spend === 0 ? 0 : Number(row.retry_spend) / spend,
        firstTrySuccess: Number(row.executions) === 0 ? null : Number(row.first_try) / Number(row.executions),
        latencyP50Ms: row.p50_bucket === null ? null : latencyOfBucket(Number(row.p50_bucket)),
        latencyP95Ms: row.p95_bucket === null ? null : latencyOfBucket(Number(row.p95_bucket)),
        failuresByClass: byClass,
      };
    })
    .sort((a, b) => `${a.agent}/${a.step}`.localeCompare(`${b.agent}/${b.step}`));
}

const byName = <T extends { agent: string; step: string }>(rows: T[]) =>
  [...rows].sort((a, b) => `${a.agent}/${a.step}`.localeCompare(`${b.agent}/${b.step}`));

describe('rollups', () => {
  it('give every read model the figures of a raw recount, for random windows, to the micro-dollar', async () => {
    const random = randomSource(20_261_001);
    // The first two days get their daily partitions; the third stays in the default partition.
    await ensureAttemptPartitions(database.db, { from: new Date(start), to: new Date(start + 2 * DAY_MS) });

    const history = Array.from({ length: 1_200 }, (_, index) =>
      generateTask(random, `task-${index}`, start, 2 * DAY_MS + 12 * HOUR_MS),
    ).flat();
    const early = history.filter((row) => row.startedAt! < now);
    // Some attempts are still running when their hour is first rolled up.
    const running = early.filter((_, index) => index % 29 === 0);
    await insertAll(
      early.map((row) =>
        running.includes(row)
          ? { ...row, outcome: 'running', finishedAt: null, latencyMs: null, errorClass: null, errorText: null }
          : row,
      ),
    );

    const firstPass = await rollUpAttempts(database.db, { now, retentionFloor: new Date(start - DAY_MS) });
    expect(firstPass.rolledTo).toEqual(new Date(start + 2 * DAY_MS + 12 * HOUR_MS));

    // After the pass: running attempts finish, and reports arrive late for hours already rolled up.
    for (const row of running) {
      await database.db.execute(sql`
        update attempts set outcome = ${row.outcome}, finished_at = ${row.finishedAt!.toISOString()}::timestamptz, latency_ms = ${row.latencyMs},
          error_class = ${row.errorClass}::error_class, error_text = ${row.errorText}, cost_micros = ${row.costMicros}
        where task_id = ${row.taskId} and step = ${row.step} and attempt_number = ${row.attemptNumber}`);
    }
    const late = Array.from({ length: 150 }, (_, index) =>
      generateTask(random, `late-${index}`, start, 2 * DAY_MS),
    ).flat();
    await insertAll(late.filter((row) => row.startedAt! < now));

    // The rollups lag the raw log until the next pass: proof that the late rows matter to this test.
    const window = { from: new Date(start), to: now };
    expect(await getStepStats(database.db, window)).not.toEqual(
      await getStepStats(database.db, window, { rawOnly: true }),
    );

    // One more late row whose transaction is still open while the next pass runs: that pass cannot see it,
    // and must leave it for the pass after.
    const straggler = generateTask(random, 'straggler', start + HOUR_MS, HOUR_MS).map((row) => ({
      ...row,
      costMicros: 123_456_789,
    }));
    await database.db.transaction(async (tx) => {
      await tx.insert(attempts).values(straggler);
      await rollUpAttempts(database.db, { now, retentionFloor: new Date(start - DAY_MS) });
    });
    const [withoutStraggler] = await database.db.execute<{ spend: string }>(sql`
      select sum(cost_micros) as spend from attempt_rollups where grain = 'hour' and agent = ${straggler[0]!.agent} and step = ${straggler[0]!.step}`);
    await rollUpAttempts(database.db, { now, retentionFloor: new Date(start - DAY_MS) });
    const [withStraggler] = await database.db.execute<{ spend: string }>(sql`
      select sum(cost_micros) as spend from attempt_rollups where grain = 'hour' and agent = ${straggler[0]!.agent} and step = ${straggler[0]!.step}`);
    expect(Number(withStraggler!.spend) - Number(withoutStraggler!.spend)).toBe(
      straggler.reduce((sum, row) => sum + row.costMicros!, 0),
    );

    // Rows in the open hour's closed five-minute buckets (the pass rolled them up to 12:30) show at the next
    // pass, as late rows of closed hours do; rows started after that edge are read raw at once.
    await insertAll(
      Array.from({ length: 20 }, (_, index) =>
        generateTask(random, `open-${index}`, now.getTime() - 30 * MINUTE_MS, 20 * MINUTE_MS),
      )
        .flat()
        .filter((row) => row.startedAt! < now),
    );
    const openHour = { from: new Date(now.getTime() - 31 * MINUTE_MS), to: now };
    expect(await getStepStats(database.db, openHour)).not.toEqual(
      await getStepStats(database.db, openHour, { rawOnly: true }),
    );
    await rollUpAttempts(database.db, { now, retentionFloor: new Date(start - DAY_MS) });
    const newest = Array.from({ length: 10 }, (_, index) =>
      generateTask(random, `newest-${index}`, now.getTime() - MINUTE_MS, MINUTE_MS / 2),
    )
      .flat()
      .filter((row) => row.startedAt! < now);
    expect(newest.length).toBeGreaterThan(0);
    await insertAll(newest);

    // Five-minute rows are what the raw log holds per bucket, and each hour's rows are the sum of its buckets'.
    const fineMismatches = await database.db.execute(sql`
      with raw as (
        select date_bin('5 minutes', started_at, timestamptz '2000-01-01 00:00:00+00') as bucket_start, agent, step,
          coalesce(error_class::text, '-') as class, count(*) as attempts, coalesce(sum(cost_micros), 0) as cost_micros
        from attempts where started_at < ${new Date(now.getTime() - MINUTE_MS).toISOString()}::timestamptz
        group by 1, 2, 3, 4
      ), fine as (
        select bucket_start, agent, step, coalesce(error_class::text, '-') as class, attempts, cost_micros
        from attempt_rollups where grain = '5min'
      )
      -- error_class is null for attempts that did not fail: compared as text, so null classes match.
      select * from raw full join fine using (bucket_start, agent, step, class)
      where (raw.attempts, raw.cost_micros) is distinct from (fine.attempts, fine.cost_micros)`);
    expect(fineMismatches).toEqual([]);
    const hourMismatches = await database.db.execute(sql`
      with fine as (
        select date_trunc('hour', bucket_start, 'UTC') as bucket_start, agent, step, coalesce(error_class::text, '-') as class,
          sum(attempts) as attempts,
          sum(executions) as executions, sum(cost_micros) as cost_micros, sum(retry_cost_micros) as retry_cost_micros
        from attempt_rollups where grain = '5min' and bucket_start < ${firstPass.rolledTo!.toISOString()}::timestamptz
        group by 1, 2, 3, 4
      ), hourly as (
        select bucket_start, agent, step, coalesce(error_class::text, '-') as class, attempts, executions, cost_micros,
          retry_cost_micros
        from attempt_rollups where grain = 'hour'
      )
      select * from fine full join hourly using (bucket_start, agent, step, class)
      where (fine.attempts, fine.executions, fine.cost_micros, fine.retry_cost_micros)
        is distinct from (hourly.attempts, hourly.executions, hourly.cost_micros, hourly.retry_cost_micros)`);
    expect(hourMismatches).toEqual([]);

    for (let trial = 0; trial < 25; trial += 1) {
      const from = new Date(start - HOUR_MS + random.int(2 * DAY_MS + 13 * HOUR_MS));
      const to = new Date(Math.min(now.getTime(), from.getTime() + 1 + random.int(2 * DAY_MS)));
      const served = byName(await getStepStats(database.db, { from, to }));
      expect(served, `window ${from.toISOString()} .. ${to.toISOString()}`).toEqual(await recount(from, to));
    }

    // The named windows read their rolled hours from the spans the last pass stored, the partial hours at their
    // edges from five-minute buckets but for a minute or so raw, and agree with a recount.
    for (const name of ['24h', '7d', '30d'] as const) {
      const range = resolveTimeWindow(name, now);
      const plan = await planFigures(database.db, { windows: [{ label: name, ...range }] });
      expect(plan.segments.map((segment) => segment.grain)).toEqual(['raw', '5min', 'span', '5min', 'raw']);
      expect(byName(await getStepStats(database.db, range)), name).toEqual(await recount(range.from, range.to));
    }

    for (const name of ['1h', '24h', '7d', '30d'] as const) {
      expect(await getOverview(database.db, name, now)).toEqual(
        await getOverview(database.db, name, now, { rawOnly: true }),
      );
    }
    // The fleet's sums per bucket (the Overview's chart) are exactly the per-step rollups' sums, late rows included.
    const fleetMismatches = await database.db.execute(sql`
      with per_step as (
        select grain, bucket_start, sum(attempts) as attempts, sum(retries) as retries, sum(cost_micros) as cost_micros,
          sum(retry_cost_micros) as retry_cost_micros
        from attempt_rollups group by grain, bucket_start
      )
      select * from per_step full join all_steps_rollups as fleet using (grain, bucket_start)
      where (per_step.attempts, per_step.retries, per_step.cost_micros, per_step.retry_cost_micros)
        is distinct from (fleet.attempts, fleet.retries, fleet.cost_micros, fleet.retry_cost_micros)`);
    expect(fleetMismatches).toEqual([]);
    const [fleetRows] = await database.db.execute<{ hours: number; days: number }>(sql`
      select count(*) filter (where grain = 'hour')::int as hours, count(*) filter (where grain = 'day')::int as days
      from all_steps_rollups`);
    expect(fleetRows!.hours).toBeGreaterThan(24);
    expect(fleetRows!.days).toBeGreaterThan(0);
    expect(await getStepAnomalies(database.db, now)).toEqual(
      await getStepAnomalies(database.db, now, { rawOnly: true }),
    );
    // A chart in minutes reads the five-minute rollups of rolled hours too, not the raw log.
    const minutePlan = await planFigures(database.db, {
      windows: [{ label: 'day', from: new Date(now.getTime() - 20 * HOUR_MS), to: now }],
      finestBucket: '5min',
    });
    expect(minutePlan.segments.map((segment) => segment.grain)).toEqual(['raw', '5min', 'raw']);
    for (const [agent, step] of steps) {
      for (const range of [
        { from: new Date(start), to: now },
        { from: new Date(now.getTime() - 20 * HOUR_MS), to: now },
        { from: new Date(now.getTime() - HOUR_MS), to: now },
        { from: new Date(start + DAY_MS + 7 * MINUTE_MS), to: new Date(start + DAY_MS + 97 * MINUTE_MS) },
      ]) {
        expect(await getStepDetail(database.db, { ...range, agent, step })).toEqual(
          await getStepDetail(database.db, { ...range, agent, step }, { rawOnly: true }),
        );
      }
    }
  });
});
