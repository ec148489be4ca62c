import 'server-only';
import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { bucketLabelSql, planFigures } from '../rollups/figures';
import { DEFAULT_FROZEN_AFTER_DAYS } from '../core/holds/freeze-idle-tasks';
import { resolveTimeWindow, type TimeWindowName } from '../time-window';
import { frozenHoldSql } from './frozen-holds';
import { bucketFor } from './step-detail';
import type { ReadOptions } from './read-options';

export interface Compared {
  now: number;
  /** The same figure over the previous window of equal length; null where no history is kept. */
  before: number | null;
}

export interface OverviewView {
  window: TimeWindowName;
  unit: 'hour' | 'day';
  headline: {
    attempts: Compared;
    retryRate: Compared;
    retrySpendMicros: Compared;
    retryShareOfSpend: Compared;
    openHolds: Compared;
    frozenHolds: Compared;
    deadLetterDepth: Compared;
    staleLocks: Compared;
    uncertainKeys: Compared;
  };
  /** Retry share of spend per bucket. */
  shareOverTime: { bucket: string; share: number }[];
  /** Retry spend per bucket for the top steps by retry spend (keys `agent/step`). */
  retrySpendByStep: { bucket: string; [step: string]: number | string }[];
  topSteps: string[];
  /**
   * Whether the previous window held any attempts. Without them the attempt
   * figures' `before` is 0 for want of data, not a measured 0, and the page
   * says "no earlier data" rather than "up from 0".
   */
  previousWindowHadAttempts: boolean;
  movers: Mover[];
}

export interface Mover {
  /** `agent/step`, the key the charts use. */
  step: string;
  agent: string;
  stepName: string;
  retryRate: Compared & { before: number };
  retrySpendMicros: Compared & { before: number };
  /** The step had no attempts in the previous window: its `before` figures are 0 for want of data. */
  newInWindow: boolean;
}

interface StepComparison {
  step: string;
  agent: string;
  stepName: string;
  attemptsNow: number;
  attemptsBefore: number;
  retriesNow: number;
  retriesBefore: number;
  spendNow: number;
  spendBefore: number;
  retrySpendNow: number;
  retrySpendBefore: number;
}

const share = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Steps charted one by one in the retry spend chart. */
const TOP_STEPS = 5;

/** The Overview's figures for a window, each beside the previous window of the same length. */
export async function getOverview(
  db: Executor,
  window: TimeWindowName,
  now: Date,
  options: ReadOptions & { frozenAfterDays?: number } = {},
): Promise<OverviewView> {
  const range = resolveTimeWindow(window, now);
  const previousFrom = new Date(range.from.getTime() - (range.to.getTime() - range.from.getTime()));
  const unit = bucketFor(range);

  const [comparison, charted] = await Promise.all([
    planFigures(db, {
      windows: [
        { label: 'now', ...range },
        { label: 'before', from: previousFrom, to: range.from },
      ],
      rawOnly: options.rawOnly,
    }),
    planFigures(db, { windows: [{ label: 'now', ...range }], finestBucket: unit, rawOnly: options.rawOnly }),
  ]);
  // The three reads are independent: run them side by side on the pool.
  const [perLabel, [parked], buckets] = await Promise.all([
    readComparison(db, comparison.figures),
    readParkedCounts(db, range.from, now, options.frozenAfterDays ?? DEFAULT_FROZEN_AFTER_DAYS),
    readBuckets(db, charted.figures, unit),
  ]);
  const stepsByName = new Map<string, StepComparison>();
  for (const row of perLabel) {
    const entry = stepsByName.get(row.step) ?? {
      step: row.step,
      agent: row.agent,
      stepName: row.step_name,
      attemptsNow: 0,
      attemptsBefore: 0,
      retriesNow: 0,
      retriesBefore: 0,
      spendNow: 0,
      spendBefore: 0,
      retrySpendNow: 0,
      retrySpendBefore: 0,
    };
    const side = row.label === 'now' ? 'Now' : 'Before';
    entry[`attempts${side}`] = Number(row.attempts);
    entry[`retries${side}`] = Number(row.retries);
    entry[`spend${side}`] = Number(row.spend);
    entry[`retrySpend${side}`] = Number(row.retry_spend);
    stepsByName.set(row.step, entry);
  }
  const perStep = [...stepsByName.values()];

  const total = (pick: (row: (typeof perStep)[number]) => number) => perStep.reduce((sum, row) => sum + pick(row), 0);
  const attemptsNow = total((row) => row.attemptsNow);
  const attemptsBefore = total((row) => row.attemptsBefore);

  // The same choice readBuckets makes in SQL: most retry spend, then the `agent/step` key in code-unit order.
  const topSteps = [...perStep]
    .filter((row) => row.retrySpendNow > 0)
    .sort((a, b) => b.retrySpendNow - a.retrySpendNow || compareText(a.step, b.step))
    .slice(0, TOP_STEPS)
    .map((row) => row.step);
  const byBucket = new Map<string, { spend: number; retrySpend: number; steps: Record<string, number> }>();
  for (const row of buckets) {
    const entry = byBucket.get(row.bucket) ?? { spend: 0, retrySpend: 0, steps: {} };
    entry.spend += row.spend;
    entry.retrySpend += row.retrySpend;
    if (row.step !== null && topSteps.includes(row.step)) entry.steps[row.step] = row.retrySpend;
    byBucket.set(row.bucket, entry);
  }

  const movers = perStep
    .map(
      (row): Mover => ({
        step: row.step,
        agent: row.agent,
        stepName: row.stepName,
        retryRate: {
          now: share(row.retriesNow, row.attemptsNow),
          before: share(row.retriesBefore, row.attemptsBefore),
        },
        retrySpendMicros: { now: row.retrySpendNow, before: row.retrySpendBefore },
        newInWindow: row.attemptsBefore === 0,
      }),
    )
    .filter((row) => row.retrySpendMicros.now > row.retrySpendMicros.before || row.retryRate.now > row.retryRate.before)
    .sort(
      (a, b) =>
        b.retrySpendMicros.now - b.retrySpendMicros.before - (a.retrySpendMicros.now - a.retrySpendMicros.before) ||
        b.retryRate.now - b.retryRate.before - (a.retryRate.now - a.retryRate.before),
    )
    .slice(0, 5);

  return {
    window,
    unit,
    headline: {
      attempts: { now: attemptsNow, before: attemptsBefore },
      retryRate: {
        now: share(
          total((r) => r.retriesNow),
          attemptsNow,
        ),
        before: share(
          total((r) => r.retriesBefore),
          attemptsBefore,
        ),
      },
      retrySpendMicros: { now: total((r) => r.retrySpendNow), before: total((r) => r.retrySpendBefore) },
      retryShareOfSpend: {
        now: share(
          total((r) => r.retrySpendNow),
          total((r) => r.spendNow),
        ),
        before: share(
          total((r) => r.retrySpendBefore),
          total((r) => r.spendBefore),
        ),
      },
      openHolds: { now: parked?.open_now ?? 0, before: parked?.open_before ?? 0 },
      frozenHolds: { now: parked?.frozen_now ?? 0, before: parked?.frozen_before ?? 0 },
      deadLetterDepth: { now: parked?.dead_letters ?? 0, before: null },
      staleLocks: { now: parked?.stale_locks ?? 0, before: null },
      uncertainKeys: { now: parked?.uncertain_keys ?? 0, before: null },
    },
    shareOverTime: [...byBucket].map(([key, entry]) => ({ bucket: key, share: share(entry.retrySpend, entry.spend) })),
    retrySpendByStep: [...byBucket].map(([key, entry]) => ({ bucket: key, ...entry.steps })),
    topSteps,
    previousWindowHadAttempts: attemptsBefore > 0,
    movers,
  };
}

function readComparison(db: Executor, figures: SQL) {
  return db.execute<{
    step: string;
    agent: string;
    step_name: string;
    label: string;
    attempts: string;
    retries: string;
    spend: string;
    retry_spend: string;
  }>(sql`
    select agent || '/' || step as step, agent, step as step_name, label, sum(attempts) as attempts, sum(retries) as retries,
      sum(cost_micros) as spend, sum(retry_cost_micros) as retry_spend
    from ${figures} as figures
    group by agent, step, label`);
}

/** Holds, dead letters, locks and keys waiting for a person: counts now, and holds as they stood when the window began. */
function readParkedCounts(db: Executor, windowStart: Date, now: Date, frozenAfterDays: number) {
  const from = sql`${windowStart.toISOString()}::timestamptz`;
  const at = sql`${now.toISOString()}::timestamptz`;
  return db.execute<{
    open_now: number;
    open_before: number;
    frozen_now: number;
    frozen_before: number;
    dead_letters: number;
    stale_locks: number;
    uncertain_keys: number;
  }>(sql`
    select
      (select count(*)::int from holds where status = 'open') as open_now,
      (select count(*)::int from holds where opened_at <= ${from} and (cleared_at is null or cleared_at > ${from})) as open_before,
      (select count(*)::int from holds where status = 'open' and ${frozenHoldSql(at, frozenAfterDays)}) as frozen_now,
      (select count(*)::int from holds where opened_at <= ${from} and (cleared_at is null or cleared_at > ${from})
        and ${frozenHoldSql(from, frozenAfterDays)}) as frozen_before,
      (select count(*)::int from dead_letters where status = 'pending') as dead_letters,
      (select count(*)::int from slot_locks where released_at is null and expires_at <= now()) as stale_locks,
      (select count(*)::int from idempotency_keys where status = 'in_progress' and locked_until <= now() and not downstream_idempotent) as uncertain_keys`);
}

/**
 * Spend and retry spend per bucket, and the retry spend of the top steps per
 * bucket (the others summed in a row with a null step). The top steps are
 * chosen here, in SQL, so that a fleet of thousands of steps returns a few
 * rows per bucket rather than one per step and bucket. PostgreSQL's "C"
 * collation orders text by code point, as compareText does in JavaScript.
 */
async function readBuckets(db: Executor, figures: SQL, unit: 'hour' | 'day') {
  const rows = await db.execute<{ bucket: string; step: string | null; spend: string; retry_spend: string }>(sql`
    with charted as (
      select bucket_time, agent || '/' || step as step, cost_micros, retry_cost_micros from ${figures} as figures
    ),
    top_steps as (
      select step from charted
      group by step
      having sum(retry_cost_micros) > 0
      order by sum(retry_cost_micros) desc, step collate "C"
      limit ${TOP_STEPS}
    )
    select ${bucketLabelSql(unit, sql`bucket_time`)} as bucket, top_steps.step,
      sum(cost_micros) as spend, sum(retry_cost_micros) as retry_spend
    from charted left join top_steps on top_steps.step = charted.step
    group by 1, 2
    order by 1`);
  return rows.map((row) => ({
    bucket: row.bucket,
    step: row.step,
    spend: Number(row.spend),
    retrySpend: Number(row.retry_spend),
  }));
}
