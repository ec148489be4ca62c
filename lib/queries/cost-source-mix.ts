import 'server-only';
import { sql } from 'drizzle-orm';
import type { Executor } from '@holdfast/engine/db';
import { costSources, type CostSource, FIGURES } from '@holdfast/engine/db/schema';
import type { TimeRange } from '@holdfast/protocol/time-window';

/**
 * The most attempts one mix reads, so a step's page stays quick whatever the step's rate: 50,000 of a step among
 * 600,000 rows took 33-44 ms warm and 84 ms cold on a two-core machine (embedded PostgreSQL).
 */
export const COST_MIX_MAX_ATTEMPTS = 50_000;

/** One cost source's share of a step's attempts; null: the attempts that recorded none. */
export interface CostSourceShare {
  costSource: CostSource | null;
  attempts: number;
  costMicros: number;
  retries: number;
  retryCostMicros: number;
}

export interface CostSourceMix {
  /** What was read: attempts started in [from, to), or after `cutAfter` when the window held too many. */
  from: Date;
  to: Date;
  /** The window started before the raw attempts kept: `from` is the oldest moment still kept. */
  clippedToRetention: boolean;
  /** The window held more than the most read: only the attempts started after this moment are counted. */
  cutAfter: Date | null;
  /** In the order reported, priced, rule, none, then unrecorded; sources without attempts are left out. */
  shares: CostSourceShare[];
}

type MixRow = {
  cut: Date | string | null;
  cost_source: CostSource | null;
  attempts: string | null;
  cost_micros: string | null;
  retries: string | null;
  retry_cost_micros: string | null;
};

const order = (source: CostSource | null) => (source === null ? costSources.length : costSources.indexOf(source));

/**
 * Where one step's (or one agent's) costs came from over a window: attempts and cost per cost source, read from the raw attempt
 * log by attempts_agent_step_started_at_idx (the rollups do not keep the cost source). The raw log is kept for
 * `rawFloor` on; a window reaching further back is read from there. At most `maxAttempts` of the latest are
 * read: past that, the mix covers the attempts started after the first one left out, and says so.
 */
export async function getCostSourceMix(
  db: Executor,
  /** No `step`: every step of the agent (the agent's page), read by the same index's agent prefix. */
  params: TimeRange & { agent: string; step?: string; rawFloor: Date; maxAttempts?: number },
): Promise<CostSourceMix> {
  const limit = params.maxAttempts ?? COST_MIX_MAX_ATTEMPTS;
  const clippedToRetention = params.from < params.rawFloor;
  const from = clippedToRetention ? params.rawFloor : params.from;
  const to = params.to;
  if (from >= to) return { from: to, to, clippedToRetention, cutAfter: null, shares: [] };
  // The latest limit + 1 attempts by the index, newest first; when the last one is there, the window holds more,
  // and the mix counts only what started after it (so every attempt at the cut moment is left out alike).
  const rows = await db.execute<MixRow>(sql`
    with latest as (
      select started_at, attempt_number, cost_source, cost_micros, retry_cost_micros from attempts
      where agent = ${params.agent} ${params.step === undefined ? sql`` : sql`and step = ${params.step}`}
        and started_at >= ${from.toISOString()}::timestamptz and started_at < ${to.toISOString()}::timestamptz
      order by started_at desc
      limit ${limit + 1}
    ),
    edge as (select case when count(*) > ${limit} then min(started_at) end as cut from latest)
    select edge.cut, mix.cost_source, mix.attempts, mix.cost_micros, mix.retries, mix.retry_cost_micros
    from edge left join lateral (
      select cost_source, count(*)::text as attempts, sum(cost_micros)::text as cost_micros,
        (${sql.raw(FIGURES.retries.raw)})::text as retries,
        (${sql.raw(FIGURES.retryCostMicros.raw)})::text as retry_cost_micros
      from latest
      where edge.cut is null or started_at > edge.cut
      group by cost_source
    ) as mix on true`);
  const cut = rows[0]?.cut ?? null;
  const shares = rows
    .filter((row) => row.attempts !== null)
    .map((row) => ({
      costSource: row.cost_source,
      attempts: Number(row.attempts),
      costMicros: Number(row.cost_micros),
      retries: Number(row.retries),
      retryCostMicros: Number(row.retry_cost_micros),
    }))
    .sort((a, b) => order(a.costSource) - order(b.costSource));
  return { from, to, clippedToRetention, cutAfter: cut === null ? null : new Date(cut), shares };
}

/** The part of the retry spend that was priced from token counts (an estimate of what the provider bills). */
export function pricedRetryCostMicros(mix: CostSourceMix): number {
  return mix.shares.find((share) => share.costSource === 'priced')?.retryCostMicros ?? 0;
}
