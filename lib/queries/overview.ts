import 'server-only';
import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '@holdfast/engine/db';
import { bucketLabelSql, allStepsRelation, finestBucketFor, planFigures } from '@holdfast/engine/rollups';
import { DEFAULT_FROZEN_AFTER_DAYS } from '@holdfast/engine/core';
import { type BucketUnit, bucketFor, resolveTimeWindow, type TimeWindowName } from '@holdfast/protocol/time-window';
import { frozenHoldSql } from './frozen-holds';
import type { ReadOptions } from './read-options';
import { readDataBegins } from './data-span';

export interface Compared {
  now: number;
  /** The same figure over the previous window of equal length; null where no history is kept. */
  before: number | null;
}

export interface OverviewView {
  window: TimeWindowName;
  unit: BucketUnit;
  /** The window read, ISO: the charts draw every bucket of it, a quiet one as zero. */
  range: { from: string; to: string };
  /** Where the figures' history begins (ISO), or null: a window reaching past it holds less than its name. */
  dataBegins: string | null;
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

  const comparison = await planFigures(db, {
    windows: [
      { label: 'now', ...range },
      { label: 'before', from: previousFrom, to: range.from },
    ],
    rawOnly: options.rawOnly,
  });
  const [perLabel, [parked], dataBegins] = await Promise.all([
    readComparison(db, comparison.figures),
    readParkedCounts(db, range.from, now, options.frozenAfterDays ?? DEFAULT_FROZEN_AFTER_DAYS),
    readDataBegins(db),
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

  // The fleet's figures per window, as SQL summed them over the steps (no sum of rounded JS numbers).
  const totalsOf = (label: string) => {
    const row = perLabel.find((entry) => entry.label === label);
    return {
      attempts: Number(row?.total_attempts ?? 0),
      retries: Number(row?.total_retries ?? 0),
      spend: Number(row?.total_spend ?? 0),
      retrySpend: Number(row?.total_retry_spend ?? 0),
    };
  };
  const totalNow = totalsOf('now');
  const totalBefore = totalsOf('before');
  const attemptsNow = totalNow.attempts;
  const attemptsBefore = totalBefore.attempts;

  // Most retry spend, then the `agent/step` key in code-unit order; the chart reads these steps' series.
  const topSteps = [...perStep]
    .filter((row) => row.retrySpendNow > 0)
    .sort((a, b) => b.retrySpendNow - a.retrySpendNow || compareText(a.step, b.step))
    .slice(0, TOP_STEPS)
    .map((row) => row.step);
  const charted = await readChart(
    db,
    range,
    unit,
    topSteps.map((key) => stepsByName.get(key)!),
    options.rawOnly,
  );
  const byBucket = new Map<string, { spend: number; retrySpend: number; steps: Record<string, number> }>();
  for (const row of charted.totals)
    byBucket.set(row.bucket, { spend: row.spend, retrySpend: row.retrySpend, steps: {} });
  for (const row of charted.topSteps) {
    const entry = byBucket.get(row.bucket);
    // A top step's bucket is always among the fleet's buckets: the fleet's sums include it.
    if (entry) entry.steps[row.step] = row.retrySpend;
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
    range: { from: range.from.toISOString(), to: range.to.toISOString() },
    dataBegins: dataBegins?.toISOString() ?? null,
    headline: {
      attempts: { now: attemptsNow, before: attemptsBefore },
      retryRate: { now: share(totalNow.retries, attemptsNow), before: share(totalBefore.retries, attemptsBefore) },
      retrySpendMicros: { now: totalNow.retrySpend, before: totalBefore.retrySpend },
      retryShareOfSpend: {
        now: share(totalNow.retrySpend, totalNow.spend),
        before: share(totalBefore.retrySpend, totalBefore.spend),
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
    /** The window's figures over every step: summed exactly in SQL (numeric), made a JS number once. */
    total_attempts: string;
    total_retries: string;
    total_spend: string;
    total_retry_spend: string;
  }>(sql`
    select agent || '/' || step as step, agent, step as step_name, label, sum(attempts) as attempts, sum(retries) as retries,
      sum(cost_micros) as spend, sum(retry_cost_micros) as retry_spend,
      sum(sum(attempts)) over per_label as total_attempts, sum(sum(retries)) over per_label as total_retries,
      sum(sum(cost_micros)) over per_label as total_spend, sum(sum(retry_cost_micros)) over per_label as total_retry_spend
    from ${figures} as figures
    group by agent, step, label
    window per_label as (partition by label)`);
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
 * The chart's series per bucket: the whole fleet's spend and retry spend (one
 * row per bucket from all_steps_rollups, whatever the number of steps), and the
 * retry spend of the top steps alone, read by their (agent, step) names.
 */
async function readChart(
  db: Executor,
  range: { from: Date; to: Date },
  unit: BucketUnit,
  topSteps: { agent: string; stepName: string; step: string }[],
  rawOnly: boolean | undefined,
) {
  const plan = await planFigures(db, {
    windows: [{ label: 'now', ...range }],
    finestBucket: finestBucketFor(unit),
    steps: topSteps.map(({ agent, stepName }) => ({ agent, step: stepName })),
    rawOnly,
  });
  const bucket = bucketLabelSql(unit, sql`bucket_time`);
  const [totals, perStep] = await Promise.all([
    db.execute<{ bucket: string; spend: string; retry_spend: string }>(sql`
      select ${bucket} as bucket, sum(cost_micros) as spend, sum(retry_cost_micros) as retry_spend
      from ${allStepsRelation(plan.segments, finestBucketFor(unit))} as fleet
      group by 1
      order by 1`),
    topSteps.length === 0
      ? Promise.resolve([])
      : db.execute<{ bucket: string; step: string; retry_spend: string }>(sql`
          select ${bucket} as bucket, agent || '/' || step as step, sum(retry_cost_micros) as retry_spend
          from ${plan.figures} as figures
          group by 1, 2`),
  ]);
  return {
    totals: totals.map((row) => ({
      bucket: row.bucket,
      spend: Number(row.spend),
      retrySpend: Number(row.retry_spend),
    })),
    topSteps: perStep.map((row) => ({ bucket: row.bucket, step: row.step, retrySpend: Number(row.retry_spend) })),
  };
}
