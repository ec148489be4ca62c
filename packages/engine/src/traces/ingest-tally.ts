import { sql } from 'drizzle-orm';
import type { Executor } from '../db/client';
import type { SpanOutcome, SpanShapeSample } from '../db/schema/span-ingest';
import { textAttribute } from './attribute-values';
import type { ExportedSpan } from './exported-span';
import { CALL_ATTRIBUTE_PREFIXES } from './span-conventions';

/** Services counted apart; spans of any further service are counted under `(other)`, so the counts stay bounded. */
export const MAX_SERVICES_COUNTED = 500;
const SERVICE_NAME_MAX = 120;
const SAMPLE_KEYS_MAX = 30;
const SAMPLE_TEXT_MAX = 120;
/** The operations that are steps of an agent's run (the AI SDK 7's `agent_step`): part of a run, not ignored. */
const RUN_PART_OPERATIONS: ReadonlySet<string> = new Set(['agent_step']);

/** What became of a batch's spans, per service and outcome, with a sample of each ignored kind. */
export class IngestTally {
  private readonly counts = new Map<string, { service: string; outcome: SpanOutcome; spans: number }>();
  private readonly samples = new Map<string, SpanShapeSample>();

  count(span: ExportedSpan, outcome: SpanOutcome, spans = 1): void {
    const service = serviceOf(span);
    const key = `${outcome}\u0000${service}`;
    const entry = this.counts.get(key) ?? { service, outcome, spans: 0 };
    entry.spans += spans;
    this.counts.set(key, entry);
    if (outcome === 'ignored_operation' || outcome === 'ignored_unrecognised') this.samples.set(key, sampleOf(span));
  }

  /** A span no convention counted: a run's step, a call in a namespace not read (sampled), or any other span. */
  countUncounted(span: ExportedSpan, operation: string | undefined): void {
    if (operation && RUN_PART_OPERATIONS.has(operation)) this.count(span, 'run_part');
    else if (operation) this.count(span, 'ignored_operation');
    else if (looksLikeACall(span)) this.count(span, 'ignored_unrecognised');
    else this.count(span, 'other');
  }

  /** Moves `spans` counted as one outcome to another (a call refused when stored). */
  recount(service: string, from: SpanOutcome, to: SpanOutcome, spans: number): void {
    const source = this.counts.get(`${from}\u0000${service}`);
    if (!source || spans <= 0) return;
    const moved = Math.min(spans, source.spans);
    source.spans -= moved;
    const key = `${to}\u0000${service}`;
    const target = this.counts.get(key) ?? { service, outcome: to, spans: 0 };
    target.spans += moved;
    this.counts.set(key, target);
  }

  rows(): { service: string; outcome: SpanOutcome; spans: number; sample: SpanShapeSample | null }[] {
    return [...this.counts]
      .filter(([, entry]) => entry.spans > 0)
      .map(([key, entry]) => ({ ...entry, sample: this.samples.get(key) ?? null }));
  }
}

export function serviceOf(span: ExportedSpan): string {
  const name = textAttribute(span.resource, 'service.name')?.trim();
  return name ? [...name].slice(0, SERVICE_NAME_MAX).join('') : 'unknown_service';
}

function looksLikeACall(span: ExportedSpan): boolean {
  for (const key of span.attributes.keys())
    if (CALL_ATTRIBUTE_PREFIXES.some((prefix) => key.startsWith(prefix))) return true;
  return false;
}

/** A span's shape, never its values: its name, its operation, and its keys in the call conventions' namespaces. */
function sampleOf(span: ExportedSpan): SpanShapeSample {
  const keys = [...span.attributes.keys()]
    .filter((key) => CALL_ATTRIBUTE_PREFIXES.some((prefix) => key.startsWith(prefix)))
    .sort()
    .slice(0, SAMPLE_KEYS_MAX)
    .map((key) => key.slice(0, SAMPLE_TEXT_MAX));
  const operation = textAttribute(span.attributes, 'gen_ai.operation.name');
  return {
    name: [...span.name].slice(0, SAMPLE_TEXT_MAX).join(''),
    ...(operation ? { operation: operation.slice(0, SAMPLE_TEXT_MAX) } : {}),
    keys,
  };
}

/**
 * Adds a batch's counts to the hour's and the running totals, in one statement. A service beyond the first
 * MAX_SERVICES_COUNTED ever counted is counted as `(other)` (concurrent batches may pass the bound by a few).
 * Text with a NUL or a lone surrogate cannot be stored: those characters become U+FFFD.
 */
export async function writeIngestTally(db: Executor, tally: IngestTally, at: Date): Promise<void> {
  const rows = tally.rows().map((row) => ({
    ...row,
    service: storable(row.service),
    sample: row.sample && {
      ...row.sample,
      name: storable(row.sample.name),
      ...(row.sample.operation ? { operation: storable(row.sample.operation) } : {}),
      keys: row.sample.keys.map(storable),
    },
  }));
  if (rows.length === 0) return;
  await db.execute(sql`
    with incoming as (
      select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        as r(service text, outcome text, spans bigint, sample jsonb)
    ),
    known as (select distinct service from span_ingest_totals),
    placed as (
      select case when i.service in (select service from known)
          or (select count(*) from known) < ${MAX_SERVICES_COUNTED}::int then i.service else '(other)' end as service,
        i.outcome, i.spans, i.sample
      from incoming i
    ),
    summed as (
      select service, outcome, sum(spans)::bigint as spans, (array_agg(sample) filter (where sample is not null))[1] as sample
      from placed group by service, outcome
    ),
    totals as (
      insert into span_ingest_totals (service, outcome, spans)
      select service, outcome, spans from summed
      on conflict (service, outcome) do update set spans = span_ingest_totals.spans + excluded.spans
    )
    insert into span_ingest_hours (hour, service, outcome, spans, sample, last_seen_at)
    select date_trunc('hour', ${at.toISOString()}::timestamptz, 'UTC'), service, outcome, spans, sample,
      ${at.toISOString()}::timestamptz
    from summed
    on conflict (hour, service, outcome) do update set
      spans = span_ingest_hours.spans + excluded.spans,
      sample = coalesce(excluded.sample, span_ingest_hours.sample),
      last_seen_at = excluded.last_seen_at`);
}

/** A text PostgreSQL can store: a NUL or a lone surrogate becomes U+FFFD (they are names, never compared to others). */
function storable(text: string): string {
  return text.replaceAll('\u0000', '\uFFFD').replace(/[\ud800-\udfff]/gu, '\uFFFD');
}
