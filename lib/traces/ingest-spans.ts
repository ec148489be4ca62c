import { sql } from 'drizzle-orm';
import { decide } from '../core/authorization';
import { type CoreContext, DEFAULT_CORE_POLICY, nowOf, policyOf } from '../core/context';
import { readTaskAgents } from '../core/tasks/task-agent';
import type { Transaction } from '../db/client';
import type { ExportedSpan } from './otlp-request';
import type { SpanMappingRules } from './mapping-rules';
import { type SpanAttempt, spanToAttempt } from './span-to-attempt';

export interface IngestResult {
  /** Spans that are attempts, new or seen before. */
  attempts: number;
  /** Spans refused, each with its reason (the first few are named in the answer). */
  rejected: { spanId: string; reason: string }[];
}

/** A clock a little ahead of ours is a skewed exporter, not an attempt from the future (as recordAttempt). */
const MAX_CLOCK_SKEW_MS = 5 * 60_000;

/**
 * Turns an export batch's spans into attempts (span-to-attempt.ts), in one
 * transaction: the spans are stored once each (trace_spans' key: a batch sent
 * again adds nothing), then every step execution that gained a span is
 * numbered afresh from all its stored spans, by start time, and its attempts
 * written again under that numbering. So attempt numbers are exact whatever
 * order siblings arrive in, and across batches. Executions are locked while
 * numbered, so two batches carrying siblings of one execution take turns.
 *
 * A span is refused (and counted in the answer's partial success) when it
 * cannot be an attempt, starts outside the raw retention, or acts for an agent
 * the token may not act for: its limits, or a task stored with another agent.
 */
export async function ingestSpans(
  ctx: CoreContext,
  spans: readonly ExportedSpan[],
  rules: SpanMappingRules,
): Promise<IngestResult> {
  const rejected: IngestResult['rejected'] = [];
  const candidates: SpanAttempt[] = [];
  const now = nowOf(ctx).getTime();
  const retentionMs = policyOf(ctx).attemptRetentionMs ?? DEFAULT_CORE_POLICY.attemptRetentionMs!;
  for (const span of spans) {
    const mapped = spanToAttempt(span, rules);
    if (!mapped.counted) continue;
    if ('refused' in mapped) {
      rejected.push({ spanId: span.spanId, reason: mapped.refused });
      continue;
    }
    const { attempt } = mapped;
    const started = attempt.startedAt.getTime();
    if (started < now - retentionMs || started > now + MAX_CLOCK_SKEW_MS) {
      rejected.push({ spanId: span.spanId, reason: 'starts outside the kept days of attempts (or in the future)' });
      continue;
    }
    const decision = ctx.actor
      ? decide(ctx.actor, 'traces.write', { agent: attempt.agent })
      : { allowed: true as const };
    if (!decision.allowed) {
      rejected.push({ spanId: span.spanId, reason: decision.reason });
      continue;
    }
    candidates.push(attempt);
  }
  if (candidates.length === 0) return { attempts: 0, rejected };

  return ctx.db.transaction(async (tx) => {
    // A task belongs to its agent (DOMAIN invariant 17): one stored by the step protocol or by earlier spans.
    const owners = await storedAgents(tx, candidates);
    const accepted = candidates.filter((attempt) => {
      const owner = owners.get(attempt.taskId);
      if (owner === undefined || owner === attempt.agent) return true;
      rejected.push({ spanId: attempt.spanId, reason: `task "${attempt.taskId}" belongs to agent "${owner}"` });
      return false;
    });
    if (accepted.length > 0) await storeAndNumber(tx, accepted);
    return { attempts: accepted.length, rejected };
  });
}

async function storedAgents(tx: Transaction, attempts: SpanAttempt[]): Promise<Map<string, string>> {
  const taskIds = [...new Set(attempts.map((attempt) => attempt.taskId))];
  const owners = new Map<string, string>();
  for (const task of (await readTaskAgents(tx, taskIds)).values()) owners.set(task.taskId, task.agent);
  const fromSpans = await tx.execute<{ task_id: string; agent: string }>(sql`
    select distinct on (task_id) task_id, agent from trace_spans
    where task_id in (select jsonb_array_elements_text(${JSON.stringify(taskIds)}::jsonb))`);
  for (const row of fromSpans) if (!owners.has(row.task_id)) owners.set(row.task_id, row.agent);
  return owners;
}

/** The batch's attempts as one JSON parameter (drizzle would spread a JS array into a row of parameters). */
function asRecordset(attempts: SpanAttempt[]) {
  const rows = attempts.map((a) => ({
    trace_id: a.traceId,
    span_id: a.spanId,
    task_id: a.taskId,
    agent: a.agent,
    step: a.step,
    started_at: a.startedAt.toISOString(),
    finished_at: a.finishedAt.toISOString(),
    stated_attempt: a.statedAttempt,
    outcome: a.outcome,
    error_class: a.errorClass,
    error_text: a.errorText,
    cost_micros: a.costMicros,
    cost_source: a.costSource,
  }));
  return sql`jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as s(trace_id text, span_id text, task_id text,
    agent text, step text, started_at timestamptz, finished_at timestamptz, stated_attempt int, outcome text,
    error_class error_class, error_text text, cost_micros bigint, cost_source text)`;
}

async function storeAndNumber(tx: Transaction, attempts: SpanAttempt[]): Promise<void> {
  const batch = asRecordset(attempts);
  // Executions that gain a span, locked in one order (no two batches deadlock), then their spans stored.
  await tx.execute(sql`
    select pg_advisory_xact_lock(hashtextextended(execution, 0))
    from (select distinct task_id || '/' || step as execution from ${batch} order by 1) as executions`);
  // Executions with spans from earlier batches: only their attempts are numbered again (a new one's spans are all here).
  const earlier = await tx.execute<{ task_id: string; step: string }>(sql`
    select distinct s.task_id, s.step from trace_spans s
    join (select distinct task_id, step from ${batch}) as b on b.task_id = s.task_id and b.step = s.step`);
  const stored = await tx.execute<{ task_id: string; step: string }>(sql`
    insert into trace_spans (trace_id, span_id, task_id, agent, step, started_at, finished_at, stated_attempt,
      outcome, error_class, error_text, cost_micros, cost_source)
    select trace_id, span_id, task_id, agent, step, started_at, finished_at, stated_attempt,
      outcome, error_class, error_text, cost_micros, cost_source from ${batch}
    on conflict (trace_id, span_id) do nothing
    returning task_id, step`);
  if (stored.length === 0) return; // every span was seen before: nothing changes

  const executions = [...new Map(stored.map((row) => [`${row.task_id}\n${row.step}`, row])).values()];
  const executionSet = sql`jsonb_to_recordset(${JSON.stringify(executions)}::jsonb) as e(task_id text, step text)`;
  const renumbered = new Set(earlier.map((row) => `${row.task_id}\n${row.step}`));
  const again = executions.filter((row) => renumbered.has(`${row.task_id}\n${row.step}`));
  if (again.length > 0) {
    // Their attempts as numbered before, out of the log (and their identities), to be numbered afresh below. The
    // spans' start times bound the days searched, so only those partitions of the log are read.
    await tx.execute(sql`
      with executions as (select * from jsonb_to_recordset(${JSON.stringify(again)}::jsonb) as e(task_id text, step text)),
      bounds as (
        select min(s.started_at) as earliest, max(s.started_at) as latest
        from trace_spans s join executions e on s.task_id = e.task_id and s.step = e.step),
      gone as (
        delete from attempts a using executions e
        where a.task_id = e.task_id and a.step = e.step and a.idempotency_key like 'span:%'
          and a.started_at >= (select earliest from bounds) and a.started_at <= (select latest from bounds)
        returning a.task_id, a.step, a.attempt_number)
      delete from attempt_identities i using gone
      where i.task_id = gone.task_id and i.step = gone.step and i.attempt_number = gone.attempt_number`);
  }
  await tx.execute(sql`
    with executions as (select * from ${executionSet}),
    numbered as (
      select s.*, coalesce(s.stated_attempt,
        row_number() over (partition by s.task_id, s.step order by s.started_at, s.span_id))::int as attempt_number
      from trace_spans s join executions e on s.task_id = e.task_id and s.step = e.step),
    identities as (
      insert into attempt_identities (task_id, step, attempt_number, started_at)
      select task_id, step, attempt_number, started_at from numbered
      on conflict do nothing
      returning task_id, step, attempt_number)
    insert into attempts (task_id, agent, step, attempt_number, started_at, finished_at, latency_ms, outcome,
      error_class, error_text, cost_micros, cost_source, idempotency_key, source)
    select n.task_id, n.agent, n.step, n.attempt_number, n.started_at, n.finished_at,
      least(extract(epoch from (n.finished_at - n.started_at)) * 1000, 2147483647)::int, n.outcome,
      n.error_class, n.error_text, n.cost_micros, n.cost_source, 'span:' || n.trace_id || '/' || n.span_id, 'traces'
    from numbered n join identities i
      on i.task_id = n.task_id and i.step = n.step and i.attempt_number = n.attempt_number`);
}
