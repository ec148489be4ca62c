import 'server-only';
import { type SQL, sql } from 'drizzle-orm';
import type { Executor } from '@holdfast/engine/db';
import { attemptsCoveredSql, periodLengthOf, type SpendBudget } from '@holdfast/engine/core';
import { bucketLabelSql, planFigures } from '@holdfast/engine/rollups';

/**
 * How a budget's period is drawn: five-minute buckets for an hour (and the rolling hour), hours for a day (and a
 * custom period of up to two days), days for longer.
 */
function unitOf(budget: SpendBudget, at: Date): '5min' | 'hour' | 'day' {
  const length = periodLengthOf(budget, at);
  return length <= 3_600_000 ? '5min' : length <= 2 * 86_400_000 ? 'hour' : 'day';
}

/** One bucket of a period's burn-down: the spend by its end, all of it and the retries' part. */
export interface BurnPoint {
  /** The bucket's start, ISO. */
  at: string;
  spentMicros: number;
  retrySpentMicros: number;
}

/** An agent's step that spent under the budget this period. */
export interface BudgetSpender {
  agent: string;
  step: string;
  attempts: number;
  spentMicros: number;
  retrySpentMicros: number;
}

export interface BudgetBurn {
  unit: ReturnType<typeof unitOf>;
  /** Cumulative, one point per bucket with spend (a quiet bucket adds nothing). */
  points: BurnPoint[];
  /** Most spend first, at most 10. */
  spenders: BudgetSpender[];
  /** Spend since `since` (the start of the bucket an hour before now, at the finest grain read): the forecast's rate. */
  recent: { since: Date; micros: number };
  /** Where the figures come from: the rollups (the fleet, an agent, a step) or the attempt log (the rest). */
  source: 'rollups' | 'attempt log';
}

interface CoveredRow extends Record<string, unknown> {
  kind: 'bucket' | 'spender' | 'last_hour';
  bucket: string | null;
  agent: string | null;
  step: string | null;
  attempts: string;
  spent: string;
  retry_spent: string;
}

/**
 * What the attempts under a budget spent in its period under way, bucket by bucket, by whom, and in the last
 * hour, in one statement. A fleet, agent or step budget is read from the rollups, like the Steps page (exact sums,
 * fast over a month); an owner, queue or downstream budget from the attempt log of the period, joined to the
 * attempts' tasks or keys (only they know the owner, the queue and the downstream). Attempts count in the period
 * they began in, as the budget counts them, so the last point equals the budget's spend.
 */
export async function readBudgetBurn(
  db: Executor,
  budget: SpendBudget,
  period: { start: Date; now: Date },
): Promise<BudgetBurn> {
  const unit = unitOf(budget, period.now);
  // An hour's rate needs buckets no longer than an hour: a month is drawn by day from hourly rows.
  const finest = unit === '5min' ? '5min' : 'hour';
  const since = startOfBucket(new Date(period.now.getTime() - 3_600_000), finest);
  const fromRollups = budget.scope === 'fleet' || budget.scope === 'agent' || budget.scope === 'step';
  const covered = fromRollups
    ? await coveredFromRollups(db, budget, period, unit, finest)
    : coveredFromAttemptLog(budget, period, unit);
  const rows = await db.execute<CoveredRow>(sql`
    with covered as (${covered})
    select 'bucket' as kind, bucket, null as agent, null as step, sum(attempts)::text as attempts,
      sum(spent)::text as spent, sum(retry_spent)::text as retry_spent
    from covered group by bucket
    union all
    (select 'spender', null, agent, step, sum(attempts)::text, sum(spent)::text, sum(retry_spent)::text
     from covered group by agent, step having sum(spent) > 0 order by sum(spent) desc, agent, step limit 10)
    union all
    select 'last_hour', null, null, null, '0', coalesce(sum(spent), 0)::text, '0'
    from covered where bucket_time >= ${since.toISOString()}::timestamptz`);
  const buckets = rows.filter((row) => row.kind === 'bucket' && Number(row.spent) > 0);
  buckets.sort((a, b) => (a.bucket! < b.bucket! ? -1 : 1));
  let spent = 0;
  let retrySpent = 0;
  const points = buckets.map((row) => {
    spent += Number(row.spent);
    retrySpent += Number(row.retry_spent);
    return { at: row.bucket!, spentMicros: spent, retrySpentMicros: retrySpent };
  });
  return {
    unit,
    points,
    spenders: rows
      .filter((row) => row.kind === 'spender')
      .sort(
        (a, b) => Number(b.spent) - Number(a.spent) || compareText(a.agent!, b.agent!) || compareText(a.step!, b.step!),
      )
      .map((row) => ({
        agent: row.agent!,
        step: row.step!,
        attempts: Number(row.attempts),
        spentMicros: Number(row.spent),
        retrySpentMicros: Number(row.retry_spent),
      })),
    recent: { since, micros: Number(rows.find((row) => row.kind === 'last_hour')?.spent ?? 0) },
    source: fromRollups ? 'rollups' : 'attempt log',
  };
}

/** The covered relation (bucket, bucket_time, agent, step, attempts, spent, retry_spent) from the rollups. */
async function coveredFromRollups(
  db: Executor,
  budget: SpendBudget,
  period: { start: Date; now: Date },
  unit: BurnPointUnit,
  finest: '5min' | 'hour',
): Promise<SQL> {
  const plan = await planFigures(db, {
    windows: [{ label: 'period', from: period.start, to: period.now }],
    agent: budget.scope === 'agent' ? budget.scopeValue : undefined,
    finestBucket: finest,
  });
  const onlyStep = budget.scope === 'step' ? sql`and f.step = ${budget.scopeValue}` : sql``;
  return sql`select ${bucketLabelSql(unit, sql`f.bucket_time`)} as bucket, f.bucket_time, f.agent, f.step,
      f.attempts, f.cost_micros as spent, f.retry_cost_micros as retry_spent
    from (${plan.figures}) f where f.agent is not null ${onlyStep}`;
}

/** The covered relation from the attempt log of the period, for the scopes only a task or a key knows. */
function coveredFromAttemptLog(budget: SpendBudget, period: { start: Date; now: Date }, unit: BurnPointUnit): SQL {
  return sql`select ${bucketLabelSql(unit, sql`a.started_at`)} as bucket, a.started_at as bucket_time, a.agent, a.step,
      1 as attempts, a.cost_micros as spent, a.retry_cost_micros as retry_spent
    from ${attemptsCoveredSql(budget, period.start, period.now)}`;
}

type BurnPointUnit = BudgetBurn['unit'];

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The start of the five-minute or hour bucket holding `at` (UTC). */
function startOfBucket(at: Date, grain: '5min' | 'hour'): Date {
  const size = grain === '5min' ? 300_000 : 3_600_000;
  return new Date(Math.floor(at.getTime() / size) * size);
}
