import { sql } from 'drizzle-orm';
import { currentBudgetSpend } from '../core/budgets/budget-stripes';
import { readPoolLevels } from '../core/retry-pools/pool-level';
import type { Executor } from '../db/client';
import { COUNTER_FIGURES, retryPools, STEP_TOTAL_FIGURES } from '../db/schema';
import { figureList, rawFigures } from '../rollups/figure-sql';
import { readRollupEdge } from '../rollups/figures';
import type { MetricName } from './catalog';
import { DEFAULT_MAX_STEPS_PER_AGENT, foldSteps } from './fold-steps';

/** One series: its label values (exactly the catalog's labels for the metric) and its value. */
export interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** Every metric of the catalog with its series: the scrape renders this as it is. */
export type MetricSamples = Record<MetricName, Sample[]>;

/**
 * Everything GET /metrics exports, read in three strands side by side on the
 * pool, two small statements each at most:
 *
 * - the counters, in one statement so its one snapshot sees the running
 *   totals and the rollup edge together: totals (everything rolled up) plus
 *   the raw tail since rollup_state.rolled_to (the hour or so not rolled yet),
 *   the same split the read models use (packages/engine/src/rollups/figures.ts). The attempt
 *   log is never read before the edge (read first, for the planner's sake).
 * - the gauges, one statement of small counts over partial indexes;
 * - the retry pools, then their levels in one statement (the windows and
 *   allowances of packages/engine/src/core/retry-pools/pool-level.ts, as the step engine
 *   judges them).
 *
 * `now` is the time ages and staleness are judged by. Each agent's steps past
 * `maxStepsPerAgent` are counted under step `other` (fold-steps.ts).
 */
export async function readMetrics(
  db: Executor,
  now: Date,
  { maxStepsPerAgent = DEFAULT_MAX_STEPS_PER_AGENT }: { maxStepsPerAgent?: number } = {},
): Promise<MetricSamples> {
  const [counters, gauges, pools, budgets, spans] = await Promise.all([
    readCounters(db),
    readGauges(db, now),
    readPools(db, now),
    readSpendBudgetUse(db, now),
    readSpanCounts(db),
  ]);
  return { ...foldSteps(counters, maxStepsPerAgent), ...gauges, ...pools, ...budgets, ...spans };
}

/** The spans received per service and outcome since the start (span_ingest_totals, at most 500 services). */
async function readSpanCounts(db: Executor): Promise<Pick<MetricSamples, 'holdfast_trace_spans_total'>> {
  const rows = await db.execute<{ service: string; outcome: string; spans: number }>(
    sql`select service, outcome, spans::float8 as spans from span_ingest_totals order by service, outcome`,
  );
  return {
    holdfast_trace_spans_total: rows.map((row) => ({
      labels: { service: row.service, outcome: row.outcome },
      value: row.spans,
    })),
  };
}

type CounterName =
  | 'holdfast_attempts_total'
  | 'holdfast_retries_total'
  | 'holdfast_attempt_failures_total'
  | 'holdfast_spend_microdollars_total'
  | 'holdfast_retry_spend_microdollars_total'
  | 'holdfast_budget_refusals_total';

async function readCounters(db: Executor): Promise<Pick<MetricSamples, CounterName>> {
  // The edge as a literal too, so the planner sizes the tail (an hour, not the log) and prunes
  // partitions at plan time; the statement's own read of the edge still decides, so a pass that
  // commits in between cannot make the tail overlap the totals it just added to.
  const edge = await readRollupEdge(db);
  const from = sql`${edge ? edge.toISOString() : '-infinity'}::timestamptz`;
  // One relation for three shapes: `kind` says which; `detail` is the error class or refusal reason.
  const rows = await db.execute<{
    kind: 'attempts' | 'failures' | 'refusals';
    agent: string;
    step: string;
    detail: string | null;
    a: number;
    b: number;
    c: number;
    d: number;
  }>(sql`
    with tail as (
      -- Counted as the rollups count them, summed exactly with the totals and made a float (Prometheus' type)
      -- once, below.
      select agent, step, error_class, ${rawFigures(COUNTER_FIGURES)}
      from attempts
      where started_at >= ${from}
        and started_at >= coalesce((select rolled_to from rollup_state where id = 1), '-infinity'::timestamptz)
      group by agent, step, error_class
    )
    select 'attempts' as kind, agent, step, null::text as detail,
      sum(attempts)::float8 as a, sum(retries)::float8 as b, sum(cost_micros)::float8 as c, sum(retry_cost_micros)::float8 as d
    from (
      select agent, step, ${figureList(STEP_TOTAL_FIGURES)} from attempt_totals
      union all
      select agent, step, ${figureList(STEP_TOTAL_FIGURES)} from tail
    ) as counted
    group by agent, step
    union all
    select 'failures', agent, step, error_class::text, sum(failures)::float8, 0, 0, 0
    from (
      select agent, step, error_class, failures from failure_totals
      union all
      select agent, step, error_class, failures from tail where error_class is not null and failures > 0
    ) as failed
    group by agent, step, error_class
    union all
    select 'refusals', agent, step, reason, refusals::float8, 0, 0, 0 from budget_refusal_totals`);

  const samples: Pick<MetricSamples, CounterName> = {
    holdfast_attempts_total: [],
    holdfast_retries_total: [],
    holdfast_attempt_failures_total: [],
    holdfast_spend_microdollars_total: [],
    holdfast_retry_spend_microdollars_total: [],
    holdfast_budget_refusals_total: [],
  };
  for (const row of rows) {
    const step = { agent: row.agent, step: row.step };
    if (row.kind === 'attempts') {
      samples.holdfast_attempts_total.push({ labels: step, value: row.a });
      samples.holdfast_retries_total.push({ labels: step, value: row.b });
      samples.holdfast_spend_microdollars_total.push({ labels: step, value: row.c });
      samples.holdfast_retry_spend_microdollars_total.push({ labels: step, value: row.d });
    } else if (row.kind === 'failures') {
      samples.holdfast_attempt_failures_total.push({
        labels: { ...step, error_class: row.detail ?? '' },
        value: row.a,
      });
    } else {
      samples.holdfast_budget_refusals_total.push({ labels: { ...step, reason: row.detail ?? '' }, value: row.a });
    }
  }
  return samples;
}

type GaugeName =
  | 'holdfast_holds_open'
  | 'holdfast_dead_letters_pending'
  | 'holdfast_dead_letters_oldest_age_seconds'
  | 'holdfast_slot_locks_stale'
  | 'holdfast_keys_uncertain'
  | 'holdfast_circuit_breakers_open'
  | 'holdfast_redrives_oldest_undelivered_age_seconds'
  | 'holdfast_sweep_last_success_timestamp_seconds'
  | 'holdfast_sweep_last_duration_seconds'
  | 'holdfast_alerts_firing';

async function readGauges(db: Executor, now: Date): Promise<Pick<MetricSamples, GaugeName>> {
  const at = sql`${now.toISOString()}::timestamptz`;
  const [row] = await db.execute<{
    holds: { reason: string; owner_team: string; open: number }[];
    dead_letters: { queue: string; pending: number; oldest_age: number }[];
    stale_locks: number;
    uncertain_keys: number;
    open_breakers: { scope: string; open: number }[];
    oldest_redrive_age: number;
    sweeps: { job: string; completed: number; duration: number }[];
    alerts: { kind: string; firing: number }[];
  }>(sql`
    select
      (select coalesce(json_agg(open_holds), '[]') from (
        -- An owner is "team:<name>" or "person:<email>": teams are few, people are not a label.
        select reason, case when owner like 'team:%' then substr(owner, 6) else 'person' end as owner_team, count(*)::int as open
        from holds where status = 'open' group by 1, 2) as open_holds) as holds,
      (select coalesce(json_agg(waiting), '[]') from (
        select queue, count(*)::int as pending, greatest(0, extract(epoch from ${at} - min(created_at)))::float8 as oldest_age
        from dead_letters where status = 'pending' group by queue) as waiting) as dead_letters,
      -- The Overview's definitions (lib/queries/overview.ts readParkedCounts), judged at the scrape's time.
      (select count(*)::int from slot_locks where released_at is null and expires_at <= ${at}) as stale_locks,
      (select count(*)::int from idempotency_keys
        where status = 'in_progress' and locked_until <= ${at} and not downstream_idempotent) as uncertain_keys,
      -- Open or half-open (probing): begins wait either way. Per scope: targets are many, scopes two.
      (select coalesce(json_agg(breakers), '[]') from (
        select scope, count(*)::int as open from circuit_breakers where state <> 'closed' group by scope) as breakers)
        as open_breakers,
      -- Undelivered: not yet handed to its queue (delivered_at is set by the drainer or the acknowledgement).
      (select coalesce(greatest(0, extract(epoch from ${at} - min(requested_at))), 0)::float8
        from redrives where delivered_at is null) as oldest_redrive_age,
      (select coalesce(json_agg(finished), '[]') from (
        -- Each job's latest finished pass: the distinct jobs by a skip scan of the primary key
        -- (job, bucket), then each job's newest buckets backwards (buckets are ISO times).
        with recursive jobs as (
          (select job from leases order by job limit 1)
          union all
          select (select job from leases where job > jobs.job order by job limit 1) from jobs where jobs.job is not null
        )
        select jobs.job, extract(epoch from latest.completed_at)::float8 as completed,
          greatest(0, extract(epoch from latest.completed_at - latest.acquired_at))::float8 as duration
        from jobs
        cross join lateral (
          select acquired_at, completed_at from leases
          where leases.job = jobs.job and completed_at is not null
          order by bucket desc limit 1
        ) as latest
        where jobs.job is not null) as finished) as sweeps,
      (select coalesce(json_agg(per_kind), '[]') from (
        -- Every kind with a rule shows, at 0 when nothing fires, so an alert on it has a series to read.
        select kind, sum(firing)::int as firing from (
          select kind, 0 as firing from alert_rules
          union all
          select kind, 1 from alert_instances where status = 'firing'
        ) as instances group by kind) as per_kind) as alerts`);
  if (!row) throw new Error('readGauges: the gauge query returned no row');

  return {
    holdfast_holds_open: row.holds.map((hold) => ({
      labels: { reason: hold.reason, owner_team: hold.owner_team },
      value: hold.open,
    })),
    holdfast_dead_letters_pending: row.dead_letters.map((queue) => ({
      labels: { queue: queue.queue },
      value: queue.pending,
    })),
    holdfast_dead_letters_oldest_age_seconds: row.dead_letters.map((queue) => ({
      labels: { queue: queue.queue },
      value: queue.oldest_age,
    })),
    holdfast_slot_locks_stale: [{ labels: {}, value: row.stale_locks }],
    holdfast_keys_uncertain: [{ labels: {}, value: row.uncertain_keys }],
    holdfast_circuit_breakers_open: ['step', 'downstream'].map((scope) => ({
      labels: { scope },
      value: row.open_breakers.find((breakers) => breakers.scope === scope)?.open ?? 0,
    })),
    holdfast_redrives_oldest_undelivered_age_seconds: [{ labels: {}, value: row.oldest_redrive_age }],
    holdfast_sweep_last_success_timestamp_seconds: row.sweeps.map((sweep) => ({
      labels: { sweep: sweep.job },
      value: sweep.completed,
    })),
    holdfast_sweep_last_duration_seconds: row.sweeps.map((sweep) => ({
      labels: { sweep: sweep.job },
      value: sweep.duration,
    })),
    holdfast_alerts_firing: row.alerts.map((alert) => ({ labels: { kind: alert.kind }, value: alert.firing })),
  };
}

async function readPools(
  db: Executor,
  now: Date,
): Promise<Pick<MetricSamples, 'holdfast_retry_pool_available' | 'holdfast_retry_pool_capacity'>> {
  const pools = await db.select().from(retryPools);
  if (pools.length === 0) return { holdfast_retry_pool_available: [], holdfast_retry_pool_capacity: [] };
  const levels = (await readPoolLevels(db, pools, now)).map((level, index) => ({ ...level, pool: pools[index]! }));
  // "agent/step", or "agent/*" for a pool over all of an agent's steps: one series per configured pool.
  const name = (pool: (typeof pools)[number]) => `${pool.agent}/${pool.step}`;
  return {
    holdfast_retry_pool_available: levels.map(({ pool, left }) => ({ labels: { pool: name(pool) }, value: left })),
    holdfast_retry_pool_capacity: levels.map(({ pool, allowed }) => ({ labels: { pool: name(pool) }, value: allowed })),
  };
}

/** Each spend budget's period under way: its share used and what it spent (one series each, by the budget's name). */
async function readSpendBudgetUse(
  db: Executor,
  now: Date,
): Promise<Pick<MetricSamples, 'holdfast_spend_budget_used_ratio' | 'holdfast_spend_budget_spent_microdollars'>> {
  const rows = await db.execute<{
    name: string;
    limit_micros: string;
    spent: string | null;
    reserved: string | null;
  }>(sql`
    select b.name, b.limit_micros, u.spent_micros as spent, u.reserved_micros as reserved
    from spend_budgets b
    left join ${currentBudgetSpend(now)} u on u.budget_id = b.id
    order by b.name`);
  return {
    holdfast_spend_budget_used_ratio: rows.map((row) => ({
      labels: { budget: row.name },
      value: (Number(row.spent ?? 0) + Number(row.reserved ?? 0)) / Number(row.limit_micros),
    })),
    holdfast_spend_budget_spent_microdollars: rows.map((row) => ({
      labels: { budget: row.name },
      value: Number(row.spent ?? 0),
    })),
  };
}
