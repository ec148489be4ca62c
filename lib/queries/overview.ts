import 'server-only';
import { and, gte, lt, sql } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { attempts } from '../db/schema';
import { resolveTimeWindow, type TimeWindowName } from '../time-window';
import { bucketFor } from './step-detail';

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
  movers: { step: string; retryRate: Compared; retrySpendMicros: Compared }[];
}

const share = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);

/** The Overview's figures for a window, each beside the previous window of the same length. */
export async function getOverview(db: Executor, window: TimeWindowName, now: Date): Promise<OverviewView> {
  const range = resolveTimeWindow(window, now);
  const previousFrom = new Date(range.from.getTime() - (range.to.getTime() - range.from.getTime()));
  const unit = bucketFor(range);
  const inCurrent = sql`${attempts.startedAt} >= ${range.from.toISOString()}::timestamptz`;
  const isRetry = sql`${attempts.attemptNumber} > 1`;

  const perStep = await db
    .select({
      step: sql<string>`${attempts.agent} || '/' || ${attempts.step}`,
      attemptsNow: sql<number>`count(*) filter (where ${inCurrent})`.mapWith(Number),
      attemptsBefore: sql<number>`count(*) filter (where not ${inCurrent})`.mapWith(Number),
      retriesNow: sql<number>`count(*) filter (where ${inCurrent} and ${isRetry})`.mapWith(Number),
      retriesBefore: sql<number>`count(*) filter (where not ${inCurrent} and ${isRetry})`.mapWith(Number),
      spendNow: sql<number>`coalesce(sum(${attempts.costMicros}) filter (where ${inCurrent}), 0)`.mapWith(Number),
      spendBefore: sql<number>`coalesce(sum(${attempts.costMicros}) filter (where not ${inCurrent}), 0)`.mapWith(Number),
      retrySpendNow: sql<number>`coalesce(sum(${attempts.costMicros}) filter (where ${inCurrent} and ${isRetry}), 0)`.mapWith(Number),
      retrySpendBefore: sql<number>`coalesce(sum(${attempts.costMicros}) filter (where not ${inCurrent} and ${isRetry}), 0)`.mapWith(Number),
    })
    .from(attempts)
    .where(and(gte(attempts.startedAt, previousFrom), lt(attempts.startedAt, range.to)))
    .groupBy(attempts.agent, attempts.step);

  const total = (pick: (row: (typeof perStep)[number]) => number) => perStep.reduce((sum, row) => sum + pick(row), 0);
  const attemptsNow = total((row) => row.attemptsNow);
  const attemptsBefore = total((row) => row.attemptsBefore);

  const [parked] = await db.execute<{
    open_now: number; open_before: number; frozen_now: number; frozen_before: number; dead_letters: number; stale_locks: number; uncertain_keys: number;
  }>(sql`
    select
      (select count(*)::int from holds where status = 'open') as open_now,
      (select count(*)::int from holds where opened_at <= ${range.from.toISOString()}::timestamptz
         and (cleared_at is null or cleared_at > ${range.from.toISOString()}::timestamptz)) as open_before,
      (select count(*)::int from holds where status = 'open' and reason = 'frozen') as frozen_now,
      (select count(*)::int from holds where reason = 'frozen' and opened_at <= ${range.from.toISOString()}::timestamptz
         and (cleared_at is null or cleared_at > ${range.from.toISOString()}::timestamptz)) as frozen_before,
      (select count(*)::int from dead_letters where status = 'pending') as dead_letters,
      (select count(*)::int from slot_locks where released_at is null and expires_at <= now()) as stale_locks,
      (select count(*)::int from idempotency_keys where status = 'in_progress' and locked_until <= now() and not downstream_idempotent) as uncertain_keys`);

  const bucket = sql<string>`to_char(date_trunc('${sql.raw(unit)}', ${attempts.startedAt} at time zone 'UTC'), 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;
  const buckets = await db
    .select({
      bucket,
      step: sql<string>`${attempts.agent} || '/' || ${attempts.step}`,
      spend: sql<number>`coalesce(sum(${attempts.costMicros}), 0)`.mapWith(Number),
      retrySpend: sql<number>`coalesce(sum(${attempts.costMicros}) filter (where ${isRetry}), 0)`.mapWith(Number),
    })
    .from(attempts)
    .where(and(gte(attempts.startedAt, range.from), lt(attempts.startedAt, range.to)))
    .groupBy(sql`1, 2`)
    .orderBy(sql`1`);

  const topSteps = [...perStep].sort((a, b) => b.retrySpendNow - a.retrySpendNow).filter((row) => row.retrySpendNow > 0).slice(0, 5).map((row) => row.step);
  const byBucket = new Map<string, { spend: number; retrySpend: number; steps: Record<string, number> }>();
  for (const row of buckets) {
    const entry = byBucket.get(row.bucket) ?? { spend: 0, retrySpend: 0, steps: {} };
    entry.spend += row.spend;
    entry.retrySpend += row.retrySpend;
    if (topSteps.includes(row.step)) entry.steps[row.step] = row.retrySpend;
    byBucket.set(row.bucket, entry);
  }

  const movers = perStep
    .map((row) => ({
      step: row.step,
      retryRate: { now: share(row.retriesNow, row.attemptsNow), before: share(row.retriesBefore, row.attemptsBefore) },
      retrySpendMicros: { now: row.retrySpendNow, before: row.retrySpendBefore },
    }))
    .filter((row) => row.retrySpendMicros.now > row.retrySpendMicros.before || row.retryRate.now > row.retryRate.before)
    .sort((a, b) => b.retrySpendMicros.now - b.retrySpendMicros.before - (a.retrySpendMicros.now - a.retrySpendMicros.before) || b.retryRate.now - b.retryRate.before - (a.retryRate.now - a.retryRate.before))
    .slice(0, 5);

  return {
    window,
    unit,
    headline: {
      attempts: { now: attemptsNow, before: attemptsBefore },
      retryRate: { now: share(total((r) => r.retriesNow), attemptsNow), before: share(total((r) => r.retriesBefore), attemptsBefore) },
      retrySpendMicros: { now: total((r) => r.retrySpendNow), before: total((r) => r.retrySpendBefore) },
      retryShareOfSpend: { now: share(total((r) => r.retrySpendNow), total((r) => r.spendNow)), before: share(total((r) => r.retrySpendBefore), total((r) => r.spendBefore)) },
      openHolds: { now: parked?.open_now ?? 0, before: parked?.open_before ?? 0 },
      frozenHolds: { now: parked?.frozen_now ?? 0, before: parked?.frozen_before ?? 0 },
      deadLetterDepth: { now: parked?.dead_letters ?? 0, before: null },
      staleLocks: { now: parked?.stale_locks ?? 0, before: null },
      uncertainKeys: { now: parked?.uncertain_keys ?? 0, before: null },
    },
    shareOverTime: [...byBucket].map(([key, entry]) => ({ bucket: key, share: share(entry.retrySpend, entry.spend) })),
    retrySpendByStep: [...byBucket].map(([key, entry]) => ({ bucket: key, ...entry.steps })),
    topSteps,
    movers,
  };
}
