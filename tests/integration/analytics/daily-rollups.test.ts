import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { attempts, errorClasses } from '../../../packages/engine/src/db/schema';
import { getStepStats } from '../../../lib/queries/step-stats';
import { rollUpAttempts } from '../../../packages/engine/src/rollups/roll-up';
import { useTestDatabase } from '../../support/test-database';

/**
 * A day's rollups (figures, latency histograms, the fleet's sums, the error groups) are summed once all its hours
 * are rolled, not again at every hour turn of a day still open, whose hours readers read instead. They must then
 * equal the sums of their hours, also after a late row re-rolls one of them, and reads over whole days must equal
 * the raw log.
 */
const database = useTestDatabase();

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
const today = new Date('2026-11-20T00:00:00Z').getTime();
const floor = new Date(today - 10 * DAY_MS);
let taskNumber = 0;

type NewAttempt = typeof attempts.$inferInsert;
function attemptAt(at: number, index: number): NewAttempt {
  const failed = index % 4 === 0;
  return {
    taskId: `day-${(taskNumber += 1)}`,
    agent: 'outreach',
    step: index % 3 === 0 ? 'send' : 'draft',
    attemptNumber: 1 + (index % 3),
    startedAt: new Date(at),
    finishedAt: new Date(at + 100 + index),
    latencyMs: 100 + index,
    outcome: failed ? 'failed' : 'succeeded',
    errorClass: failed ? errorClasses[index % errorClasses.length]! : null,
    errorText: failed ? `simulated failure ${index % 2}` : null,
    costMicros: 1_000 + index,
  };
}

/** One attempt every 20 minutes in [from, to). */
async function insertBetween(from: number, to: number) {
  const rows = Array.from({ length: Math.ceil((to - from) / (20 * MINUTE_MS)) }, (_, index) =>
    attemptAt(from + index * 20 * MINUTE_MS + 7 * MINUTE_MS, index),
  ).filter((row) => row.startedAt!.getTime() < to);
  await database.db.insert(attempts).values(rows);
}

const dayStart = (day: number) => sql`${new Date(day).toISOString()}::timestamptz`;

/** Each daily table's rows for `day` beside the sums of that day's hourly rows, where they differ. */
async function dayAgainstItsHours(day: number) {
  const at = dayStart(day);
  return database.db.execute(sql`
    with hours as (
      select agent, step, coalesce(error_class::text, 'none') as class, sum(attempts) as attempts, sum(retries) as retries, sum(failures) as failures,
        sum(cost_micros) as cost_micros, sum(retry_cost_micros) as retry_cost_micros
      from attempt_rollups where grain = 'hour' and bucket_start >= ${at} and bucket_start < ${at} + interval '1 day'
      group by 1, 2, 3),
    days as (
      select agent, step, coalesce(error_class::text, 'none') as class, attempts, retries, failures, cost_micros,
        retry_cost_micros
      from attempt_rollups where grain = 'day' and bucket_start = ${at}),
    hour_latency as (
      select agent, step, entry.bucket, sum(entry.count) as count
      from attempt_latency_rollups, unnest(buckets, counts) as entry(bucket, count)
      where grain = 'hour' and bucket_start >= ${at} and bucket_start < ${at} + interval '1 day'
      group by 1, 2, 3),
    day_latency as (
      select agent, step, entry.bucket, entry.count
      from attempt_latency_rollups, unnest(buckets, counts) as entry(bucket, count)
      where grain = 'day' and bucket_start = ${at}),
    group_hours as (
      select fingerprint, sum(failures) as failures, sum(tasks) as tasks
      from error_group_hours where hour >= ${at} and hour < ${at} + interval '1 day' group by 1),
    group_days as (select fingerprint, failures, tasks from error_group_days where day = ${at})
    -- The class compared as text: a join on the null class would match nothing.
    select 'figures' as what, count(*)::int as rows from hours full join days using (agent, step, class)
      where row(hours.*) is distinct from row(days.*)
    union all
    select 'latency', count(*)::int from hour_latency full join day_latency using (agent, step, bucket)
      where hour_latency.count is distinct from day_latency.count
    union all
    select 'error groups', count(*)::int from group_hours full join group_days using (fingerprint)
      where (group_hours.failures, group_hours.tasks) is distinct from (group_days.failures, group_days.tasks)
    union all
    select 'fleet', count(*)::int from (
      select sum(attempts) as attempts, sum(cost_micros) as cost_micros from days) as per_step
      full join (select attempts, cost_micros from all_steps_rollups where grain = 'day' and bucket_start = ${at}) as fleet
        on true
      where (per_step.attempts, per_step.cost_micros) is distinct from (fleet.attempts, fleet.cost_micros)`);
}

async function dayRows(day: number) {
  const [row] = await database.db.execute<{ figures: number; latency: number; fleet: number }>(sql`
    select (select count(*) from attempt_rollups where grain = 'day' and bucket_start = ${dayStart(day)})::int as figures,
      (select count(*) from attempt_latency_rollups where grain = 'day' and bucket_start = ${dayStart(day)})::int as latency,
      (select count(*) from all_steps_rollups where grain = 'day' and bucket_start = ${dayStart(day)})::int as fleet`);
  return row!;
}

const noDifferences = [
  { what: 'figures', rows: 0 },
  { what: 'latency', rows: 0 },
  { what: 'error groups', rows: 0 },
  { what: 'fleet', rows: 0 },
];

describe('daily rollups', () => {
  it('are summed once their day is whole, and again when a late row changes one of its hours', async () => {
    const yesterday = today - DAY_MS;
    await insertBetween(yesterday - 2 * DAY_MS, today + 15 * HOUR_MS);
    await rollUpAttempts(database.db, { now: new Date(today + 15 * HOUR_MS + 20_000), retentionFloor: floor });

    // Yesterday is whole: its days equal its hours. Today is not: it has no daily rows yet.
    expect(await dayAgainstItsHours(yesterday)).toEqual(noDifferences);
    expect(await dayRows(yesterday)).toMatchObject({ fleet: 1 });
    expect(await dayRows(today)).toEqual({ figures: 0, latency: 0, fleet: 0 });
    const week = { from: new Date(yesterday - 2 * DAY_MS), to: new Date(today + 15 * HOUR_MS) };
    expect(await getStepStats(database.db, week)).toEqual(await getStepStats(database.db, week, { rawOnly: true }));

    // The rest of today, then the pass after midnight: today is whole now.
    await insertBetween(today + 15 * HOUR_MS, today + DAY_MS);
    await rollUpAttempts(database.db, { now: new Date(today + DAY_MS + 20_000), retentionFloor: floor });
    expect(await dayRows(today)).toMatchObject({ fleet: 1 });
    expect(await dayAgainstItsHours(today)).toEqual(noDifferences);

    // A late row in yesterday: its hour is rolled again, and yesterday's day with it.
    await database.db.insert(attempts).values(attemptAt(yesterday + 5 * HOUR_MS + 3 * MINUTE_MS, 4));
    await rollUpAttempts(database.db, { now: new Date(today + DAY_MS + 80_000), retentionFloor: floor });
    expect(await dayAgainstItsHours(yesterday)).toEqual(noDifferences);
    const twoDays = { from: new Date(yesterday), to: new Date(today + DAY_MS) };
    expect(await getStepStats(database.db, twoDays)).toEqual(
      await getStepStats(database.db, twoDays, { rawOnly: true }),
    );
  });
});
