import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';

/**
 * Every write of a row of the attempt log, in one place: the running attempt a begin records, the end its finish
 * writes (succeeded or failed), a finished attempt an agent reports, and the attempts numbered from stored spans.
 * Each path keeps its own statement (one round trip each, their timings in docs/performance), built from these
 * pieces. The rules they share:
 *
 *  - an attempt's identity (task, step, loop pass, attempt number) is claimed in attempt_identities first, and
 *    its row is written only where the claim succeeded: a redelivery, a retried request or a span sent twice takes
 *    no identity twice, whichever partition its start time would put it in;
 *  - a running attempt is ended once, by its own key and start (`outcome = 'running'`), never before it started
 *    (a wall clock that stepped back), its latency from its start;
 *  - its share of retry spend is set by the database (the attempts_retry_cost trigger) for the library's and the
 *    HTTP paths, and by the numbering for spans, which writes a step's pass whole.
 *
 * No other file of the engine inserts or updates attempts (tests/unit/project/attempt-writers.test.ts).
 */

/** The begin's running attempt, as two CTEs (`identity`, `recorded`) of the begin's one statement (begin-writes.ts). */
export function runningAttemptCtes(values: {
  taskId: SQLWrapper;
  agent: SQLWrapper;
  step: SQLWrapper;
  iteration: SQLWrapper;
  attemptNumber: SQLWrapper;
  key: SQLWrapper;
  runKey: SQLWrapper;
  startedAt: SQLWrapper;
  source: SQLWrapper;
  /** The model the begin declared (lower-cased), or null. */
  model: SQLWrapper;
}): SQL {
  const { taskId, agent, step, iteration, attemptNumber, key, runKey, startedAt, source, model } = values;
  return sql`identity as (
  insert into attempt_identities (task_id, step, iteration, attempt_number, started_at)
  values (${taskId}::text, ${step}::text, ${iteration}::int, ${attemptNumber}::int, ${startedAt}::timestamptz)
  on conflict do nothing
  returning 1
),
recorded as (
  insert into attempts (task_id, agent, step, iteration, attempt_number, idempotency_key, run_key, started_at, outcome, source, model)
  select ${taskId}::text, ${agent}::text, ${step}::text, ${iteration}::int, ${attemptNumber}::int, ${key}::text, ${runKey}::text, ${startedAt}::timestamptz, 'running', ${source}::text, ${model}::text
  where exists (select 1 from identity)
  returning 1
)`;
}

/**
 * Ends a running attempt: `update attempts <alias> set ... <from> where <the attempt>`, for a finish's statement.
 * `attempt` names it by its task, step, number, key and start (its own columns qualified by `alias`).
 */
export function endRunningAttemptSql(end: {
  alias: string;
  outcome: SQLWrapper;
  finishedAt: SQLWrapper;
  costMicros: SQLWrapper;
  costSource: SQLWrapper;
  errorClass: SQLWrapper;
  errorText: SQLWrapper;
  /** The model the finish named (lower-cased), or null: kept where the begin declared none. */
  model: SQLWrapper;
  /** `from <relation>` when the attempt is named through another relation (a CTE of the statement), else empty. */
  from: SQL;
  attempt: { taskId: SQLWrapper; step: SQLWrapper; attemptNumber: SQLWrapper; key: SQLWrapper; startedAt: SQLWrapper };
}): SQL {
  const a = sql.raw(end.alias);
  const { taskId, step, attemptNumber, key, startedAt } = end.attempt;
  return sql`update attempts ${a} set
    outcome = ${end.outcome}::text,
    finished_at = greatest(${end.finishedAt}::timestamptz, ${a}.started_at),
    latency_ms = greatest(0, round(extract(epoch from (${end.finishedAt}::timestamptz - ${a}.started_at)) * 1000))::int,
    cost_micros = ${end.costMicros}::bigint,
    cost_source = ${end.costSource}::text,
    error_class = ${end.errorClass}::error_class,
    error_text = ${end.errorText}::text,
    model = coalesce(${a}.model, ${end.model}::text)
  ${end.from}
  where ${a}.task_id = ${taskId} and ${a}.step = ${step} and ${a}.attempt_number = ${attemptNumber}
    and ${a}.idempotency_key = ${key} and ${a}.started_at = ${startedAt} and ${a}.outcome = 'running'`;
}

/**
 * A finished attempt an agent reports (record-attempt.ts), in one prepared statement of constant text: its task's
 * owner stored if nothing stored it yet (task_agents: a report names no queue, so the task is on its agent's own),
 * the task's row locked (reports of one task take turns, so a first attempt and its succeeded retry reported at
 * once each see the other when their share of retry spend is set), the identity claimed only for a task of the
 * report's agent, and the attempt written only if the claim succeeded. $1 to $4 serve the identity and the attempt
 * alike: task, step, attempt number, start; then $5 agent, $6 end, $7 latency, $8 outcome, $9 error class,
 * $10 error text, $11 cost, $12 key, $13 run key, $14 source, $15 cost source, $16 model.
 */
export const INSERT_REPORTED_ATTEMPT = `
    with registered as (
      insert into task_agents (task_id, agent, queue, first_seen_through)
      values ($1::text, $5::text, $5::text, 'attempt')
      on conflict (task_id) do nothing
      returning agent),
    locked as (
      select agent from task_agents where task_id = $1::text and not exists (select 1 from registered)
      for update),
    belongs as (select agent from registered union all select agent from locked),
    identity as (
      insert into attempt_identities (task_id, step, attempt_number, started_at)
      select $1::text, $2::text, $3::int, $4::timestamptz
      where exists (select 1 from belongs where agent = $5::text)
      on conflict do nothing
      returning 1
    )
    insert into attempts (task_id, agent, step, attempt_number, started_at, finished_at, latency_ms, outcome,
      error_class, error_text, cost_micros, idempotency_key, run_key, source, cost_source, model)
    select $1::text, $5::text, $2::text, $3::int,
      $4::timestamptz, $6::timestamptz, $7::int,
      $8::text, $9::error_class, $10::text, $11::bigint,
      $12::text, $13::text, $14::text, $15::text, $16::text
    where exists (select 1 from identity)
    returning *`;

/**
 * The attempts numbered from stored spans (traces/attempts-from-spans.ts), as two CTEs (`identities`, `written`)
 * over `numbered` (the identities) and `shared` (the rows with their share of retry spend). `robust`: a span stored
 * by a batch whose locks did not cover it may race another, so a taken identity is skipped rather than refused.
 */
export function spanAttemptCtes(robust: boolean): SQL {
  return sql`identities as (
      insert into attempt_identities (task_id, step, iteration, attempt_number, started_at)
      select task_id, step, iteration, attempt_number, started_at from numbered
      ${robust ? sql`on conflict do nothing returning task_id, step, iteration, attempt_number` : sql``}),
    written as (
      insert into attempts (task_id, agent, step, iteration, attempt_number, started_at, finished_at, latency_ms,
        outcome, error_class, error_text, cost_micros, retry_cost_micros, cost_source, idempotency_key, source, model)
      select n.task_id, n.agent, n.step, n.iteration, n.attempt_number, n.started_at, n.finished_at,
        least(extract(epoch from (n.finished_at - n.started_at)) * 1000, 2147483647)::int, n.outcome,
        n.error_class, n.error_text, n.cost_micros, n.retry_cost_micros, n.cost_source,
        'span:' || n.trace_id || '/' || n.span_id, 'traces', n.model
      from shared n
      ${
        robust
          ? sql`join identities i on i.task_id = n.task_id and i.step = n.step and i.iteration = n.iteration
              and i.attempt_number = n.attempt_number`
          : sql``
      }
      returning task_id, agent, step, started_at, cost_micros, retry_cost_micros, model)`;
}
