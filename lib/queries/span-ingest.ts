import 'server-only';
import { sql } from 'drizzle-orm';
import type { Executor } from '@holdfast/engine/db';
import { SPAN_OUTCOMES, type SpanOutcome, type SpanShapeSample } from '@holdfast/engine/db/schema';
import type { TimeRange } from '@holdfast/protocol/time-window';

/** What became of one service's spans over a window (packages/engine/src/traces/ingest-tally.ts). */
export interface ServiceIngest {
  service: string;
  received: number;
  byOutcome: Record<SpanOutcome, number>;
  /** The last span of each ignored kind: its name, operation and call-like attribute keys. */
  samples: Partial<Record<SpanOutcome, SpanShapeSample>>;
  lastSeenAt: Date;
}

/** One agent's runs over a window (agent_runs): runs of the agent, not attempts of a step. */
export interface AgentRunSummary {
  agent: string;
  runs: number;
  failed: number;
  medianMs: number;
  lastRunAt: Date;
  /** The latest failed run's error, if any failed. */
  lastError: string | null;
}

export interface SpanIngestView {
  /** The whole UTC hours counted (the counts are kept per hour). */
  from: Date;
  to: Date;
  services: ServiceIngest[];
  runs: AgentRunSummary[];
}

const HOUR_MS = 3_600_000;
/** The most services and agents listed (the counts keep at most 500 services; runs are listed most first). */
const MAX_LISTED = 200;

export async function getSpanIngest(db: Executor, range: TimeRange): Promise<SpanIngestView> {
  const from = new Date(Math.floor(range.from.getTime() / HOUR_MS) * HOUR_MS);
  const [counted, runs] = await Promise.all([
    db.execute<{
      service: string;
      outcome: SpanOutcome;
      spans: string;
      sample: SpanShapeSample | null;
      last_seen_at: Date;
    }>(sql`
      select service, outcome, sum(spans)::text as spans,
        (array_agg(sample order by last_seen_at desc) filter (where sample is not null))[1] as sample,
        max(last_seen_at) as last_seen_at
      from span_ingest_hours
      where hour >= ${from.toISOString()}::timestamptz and hour < ${range.to.toISOString()}::timestamptz
      group by service, outcome`),
    getAgentRuns(db, range),
  ]);

  const services = new Map<string, ServiceIngest>();
  for (const row of counted) {
    const entry =
      services.get(row.service) ??
      ({
        service: row.service,
        received: 0,
        byOutcome: Object.fromEntries(SPAN_OUTCOMES.map((outcome) => [outcome, 0])) as Record<SpanOutcome, number>,
        samples: {},
        lastSeenAt: new Date(row.last_seen_at),
      } satisfies ServiceIngest);
    const spans = Number(row.spans);
    entry.received += spans;
    entry.byOutcome[row.outcome] += spans;
    if (row.sample) entry.samples[row.outcome] = row.sample;
    if (new Date(row.last_seen_at) > entry.lastSeenAt) entry.lastSeenAt = new Date(row.last_seen_at);
    services.set(row.service, entry);
  }
  return {
    from,
    to: range.to,
    services: [...services.values()]
      .sort((a, b) => b.received - a.received || a.service.localeCompare(b.service))
      .slice(0, MAX_LISTED),
    runs,
  };
}

/** Each agent's runs over the range (at most MAX_LISTED agents, most runs first), or one agent's. */
export async function getAgentRuns(db: Executor, range: TimeRange, agent?: string): Promise<AgentRunSummary[]> {
  const rows = await db.execute<{
    agent: string;
    runs: string;
    failed: string;
    median_ms: number;
    last_run_at: Date;
    last_error: string | null;
  }>(sql`
    select agent, count(*)::text as runs, count(*) filter (where outcome = 'failed')::text as failed,
      percentile_cont(0.5) within group (order by extract(epoch from finished_at - started_at) * 1000) as median_ms,
      max(started_at) as last_run_at,
      (array_agg(left(error_text, 500) order by started_at desc) filter (where outcome = 'failed'))[1] as last_error
    from agent_runs
    where started_at >= ${range.from.toISOString()}::timestamptz and started_at < ${range.to.toISOString()}::timestamptz
      ${agent === undefined ? sql`` : sql`and agent = ${agent}`}
    group by agent
    order by count(*) desc, agent
    limit ${MAX_LISTED}`);
  return rows.map((row) => ({
    agent: row.agent,
    runs: Number(row.runs),
    failed: Number(row.failed),
    medianMs: Math.round(Number(row.median_ms)),
    lastRunAt: new Date(row.last_run_at),
    lastError: row.last_error,
  }));
}
