import { sql } from 'drizzle-orm';
import { connectDatabase, type Database, ensureAttemptPartitions } from '@holdfast/engine/db';

/**
 * The analytics benchmark's data (scripts/bench-analytics.ts): an attempt log of a given size over 30 days,
 * built set-based or reused from an earlier run, and the work a running Holdfast parks beside it.
 */

/** The log's shape, from the benchmark's environment. */
export interface BenchLog {
  attempts: number;
  /** (agent, step) pairs: five steps per agent. */
  stepPairs: number;
}

export const LOG_DAYS = 30;
export const STEPS_PER_AGENT = 5;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

const seconds = (since: number) => ((performance.now() - since) / 1_000).toFixed(1);

/**
 * A span of attempts (a day while seeding, an hour for a routine pass) in one
 * statement: evenly spaced in time (as a live log is, which keeps the
 * block-range index tight), random step, attempt number 1-4 (about a quarter
 * are retries), ~12% failures across the error classes, log-normal-ish
 * latency and a cost up to 5 cents.
 */
export async function buildSpan(
  log: BenchLog,
  db: Database,
  spanStart: Date,
  spanMs: number,
  rows: number,
  offset: number,
) {
  await db.execute(sql`
    insert into attempts (task_id, agent, step, attempt_number, started_at, finished_at, latency_ms, outcome, error_class, error_text, cost_micros)
    select 'bench-' || (${offset}::bigint + g), 'agent-' || (pair / ${STEPS_PER_AGENT}), 'step-' || (pair % ${STEPS_PER_AGENT}),
      attempt_number, started_at,
      started_at + latency_ms * interval '1 millisecond', latency_ms,
      case when failed then 'failed' else 'succeeded' end,
      case when failed then (array['transient', 'timeout', 'rate_limited', 'invalid_output', 'permanent', 'unknown']::error_class[])[1 + (g % 6)] end,
      case when failed then 'simulated failure' end,
      cost_micros
    from (
      select g, floor(random() * ${log.stepPairs})::int as pair,
        ${spanStart.toISOString()}::timestamptz + (g * (${spanMs / 1_000} / ${rows}::float8)) * interval '1 second' as started_at,
        case when r < 0.75 then 1 when r < 0.92 then 2 when r < 0.98 then 3 else 4 end as attempt_number,
        random() < 0.12 as failed,
        floor(exp(random() * 8))::int as latency_ms,
        floor(random() * 50000)::bigint as cost_micros
      from (select g, random() as r from generate_series(0, ${rows - 1}) as g) as numbered
    ) as generated`);
}

/**
 * [first, now) cut at UTC midnights (the attempt log's partition bounds), each
 * piece with its share of the log's attempts and the task-id offset of its first row.
 */
function spansByPartition(log: BenchLog, first: Date, now: Date) {
  const spans: { from: Date; to: Date; rows: number; offset: number }[] = [];
  const perMs = log.attempts / (now.getTime() - first.getTime());
  let offset = 0;
  for (let from = first.getTime(); from < now.getTime(); ) {
    const to = Math.min(Math.floor(from / DAY_MS) * DAY_MS + DAY_MS, now.getTime());
    const rows = Math.floor((to - from) * perMs);
    spans.push({ from: new Date(from), to: new Date(to), rows, offset });
    offset += rows;
    from = to;
  }
  return spans;
}

/**
 * Fills the log, or reuses a database filled by an earlier run (built with the
 * same BENCH_STEPS). Returns the benchmark's `now`: the current time for a new
 * log, or just after the newest attempt of a reused one, so its windows hold
 * as many attempts as when it was built however long ago that was.
 */
export async function buildAttempts(log: BenchLog, url: string): Promise<Date> {
  const setup = connectDatabase(url, { maxConnections: 1 });
  const [existing] = await setup.db.execute<{ count: string; newest: string | null }>(
    sql`select count(*) as count, max(started_at)::text as newest from attempts`,
  );
  // A build writes each partition's share rounded down: a few short of ATTEMPTS.
  if (Number(existing?.count) >= log.attempts - 100 && existing?.newest) {
    await setup.close();
    console.log(`Reusing the ${Number(existing.count).toLocaleString('en-US')} attempts already in the database`);
    return topUpToNow(log, url, new Date(existing.newest));
  }
  const now = new Date();
  const first = new Date(now.getTime() - LOG_DAYS * DAY_MS);
  await ensureAttemptPartitions(setup.db, { from: first, to: new Date(now.getTime() + DAY_MS) });
  await setup.close();

  const began = performance.now();
  const spans = spansByPartition(log, first, now);
  // Two loaders, one per core here, taking the spans in turn. Each span lies in one day's partition, so no
  // two loaders write a partition at once: its rows stay in time order, as a live log's do, which the
  // block-range index on started_at relies on (interleaved writes had made a few minutes' read scan 800 pages).
  const loaders = Array.from({ length: 2 }, () => connectDatabase(url, { maxConnections: 1 }));
  await Promise.all(
    loaders.map(async ({ db }, loader) => {
      for (let index = loader; index < spans.length; index += loaders.length) {
        const span = spans[index]!;
        await buildSpan(log, db, span.from, span.to.getTime() - span.from.getTime(), span.rows, span.offset);
        process.stdout.write('.');
      }
    }),
  );
  await Promise.all(loaders.map((loader) => loader.close()));
  process.stdout.write('\n');
  const built = spans.reduce((sum, span) => sum + span.rows, 0);
  console.log(
    `Built ${built.toLocaleString('en-US')} attempts over ${LOG_DAYS} days in ${seconds(began)} s (set-based INSERT ... SELECT, 2 loaders)`,
  );

  const maintenance = connectDatabase(url, { maxConnections: 1 });
  const vacuumed = performance.now();
  await maintenance.db.execute(sql`vacuum analyze attempts`);
  console.log(`VACUUM ANALYZE in ${seconds(vacuumed)} s`);
  await maintenance.close();
  return now;
}

/**
 * A reused log is brought up to the present at its own rate (attempts / 720
 * an hour), so that the pages, which read at the server's clock, see the
 * same windows as the read models timed here. Returns the benchmark's `now`.
 */
export async function topUpToNow(log: BenchLog, url: string, newest: Date): Promise<Date> {
  const now = new Date();
  if (newest >= now) return now;
  const setup = connectDatabase(url, { maxConnections: 1 });
  try {
    await ensureAttemptPartitions(setup.db, { from: newest, to: new Date(now.getTime() + DAY_MS) });
    const perMs = log.attempts / (LOG_DAYS * DAY_MS);
    const from = newest.getTime() + 1;
    for (let start = from; start < now.getTime(); start += HOUR_MS) {
      const span = Math.min(HOUR_MS, now.getTime() - start);
      const rows = Math.floor(span * perMs);
      // Task ids apart from the seed's and from any earlier top-up.
      if (rows > 0) await buildSpan(log, setup.db, new Date(start), span, rows, start);
    }
    console.log(`Topped up the log from ${newest.toISOString()} to now at its own rate`);
  } finally {
    await setup.close();
  }
  return now;
}

/**
 * What a running Holdfast has parked beside its attempt log, for the scrape's
 * gauges to count: 2,000 open holds (20 teams and people), 1,000 pending dead
 * letters over 8 queues, 50 undelivered redrives, a week of sweep leases at
 * each sweep's own period (the lease table's size between trims), and 20
 * retry pools. Added once: a reused database keeps its own.
 */
export async function seedParkedWork(db: Database, now: Date) {
  const [seeded] = await db.execute<{ leases: number }>(sql`select count(*)::int as leases from leases`);
  if ((seeded?.leases ?? 0) > 0) return;
  const at = sql`${now.toISOString()}::timestamptz`;
  await db.execute(sql`
    insert into holds (item_type, item_id, reason, detail, owner, opened_by, opened_at)
    select 'task', 'bench-hold-' || g, (array['needs_approval', 'retry_ceiling', 'stale_lock', 'manual'])[1 + g % 4],
      'bench', case when g % 2 = 0 then 'team:team-' || (g % 10) else 'person:p' || (g % 10) || '@example.com' end,
      'system:bench', ${at} - g * interval '1 minute'
    from generate_series(1, 2000) as g`);
  await db.execute(sql`
    insert into dead_letters (task_id, agent, step, queue, payload, reason, attempts, spend_micros, created_at)
    select 'bench-dead-' || g, 'agent-' || (g % 8), 'step-0', 'queue-' || (g % 8), '{}', 'retry_ceiling', 4, 1000,
      ${at} - g * interval '1 minute'
    from generate_series(1, 1000) as g`);
  await db.execute(sql`
    insert into redrives (outbox_key, dead_letter_id, queue, task_id, payload, requested_by, requested_at)
    select 'bench-redrive-' || id, id, queue, task_id, '{}', 'person:oncall@example.com', created_at
    from dead_letters order by id limit 50`);
  await db.execute(sql`
    insert into leases (job, bucket, holder, acquired_at, expires_at, completed_at)
    select job, to_char(bucket at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'bench', bucket, bucket + interval '5 minutes',
      bucket + interval '200 milliseconds'
    from (values ('roll_up_attempts', 1), ('resume_bulk_redrives', 1), ('reconcile_holds', 1), ('release_stale_slots', 5),
      ('escalate_stale_locks', 5), ('escalate_uncertain_keys', 5), ('maintain_attempt_log', 60), ('delete_expired_keys', 60),
      ('delete_old_retry_pool_usage', 60), ('freeze_idle_tasks', 60)) as jobs(job, minutes),
      generate_series(date_trunc('hour', ${at}) - interval '7 days', ${at}, minutes * interval '1 minute') as bucket`);
  await db.execute(sql`
    insert into retry_pools (agent, step, budget_percent, min_retries_per_second, window_seconds, updated_by)
    select 'agent-' || (g / 5), case when g % 5 = 0 then '*' else 'step-' || (g % 5) end, 10, 0.1, 60, 'system:bench'
    from generate_series(0, 19) as g`);
  await db.execute(sql`analyze holds; analyze dead_letters; analyze redrives; analyze leases; analyze retry_pools`);
}
