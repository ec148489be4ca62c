import { sql } from 'drizzle-orm';
import { spanAttemptCtes } from '../core/attempts/attempt-writes';

/** A stored try's columns that numbering reads (as `candidate_tries`). */
export const TRY_COLUMNS = sql.raw(`t.trace_id, t.span_id, t.parent_span_id, t.started_at, t.finished_at, t.outcome,
  t.error_class, t.error_text, t.cost_micros, t.cost_source, t.resend_count, t.sender_agents`);

/**
 * The attempts of the step executions of `calls` (all their calls), numbered and written, from the
 * relations `calls` and `candidate_tries` (trace_spans rows, tries of any of those calls among them),
 * as CTEs ending in `written`. A call without tries is one attempt; a model call with tries is one
 * attempt per try, its last try carrying the call's cost (unless the provider refused that try) and
 * the call's failure when the call failed after its last answer.
 *
 * A retry is a re-send of the same operation, never a second, different call (DOMAIN.md): the calls of
 * a step under one parent are one operation only until one of them succeeds. A call that follows a
 * succeeded sibling (by start) is another operation, the step's next pass (`iteration`): two calls an
 * agent makes one after the other are two first attempts, while a call made again after a failed one
 * (an SDK's try emitted as a span of its own, as the AI SDK 5 and 6 do, or the agent's own retry) is
 * its retry. The official OpenAI instrumentation, OpenLLMetry, OpenInference and the AI SDK 7 never
 * emit a span per client retry (their retries are HTTP children, below); the recorded spans are in
 * tests/fixtures/otel-emitters. Numbers within a pass: `holdfast.attempt` where stated (a call stating
 * it is never split off), else the place by the call's start, then the try's resend count (absent: 0)
 * and start.
 */
export function attemptsWritten(robust: boolean) {
  return sql`
    tries as (
      select t.*, c.span_id as call_span_id,
        row_number() over (partition by c.trace_id, c.span_id
          order by coalesce(t.resend_count, 0), t.started_at, t.span_id) as place,
        count(*) over (partition by c.trace_id, c.span_id) as of_tries
      from calls c
      join candidate_tries t on t.trace_id = c.trace_id and t.parent_span_id = c.span_id
      where c.model_call and (t.sender_agents is null or c.agent = any(t.sender_agents))),
    units as (
      select c.task_id, c.agent, c.step, c.trace_id, c.span_id, c.started_at, c.finished_at, c.stated_attempt,
        c.outcome, c.error_class, c.error_text, c.cost_micros, c.cost_source, c.model,
        c.started_at as call_started_at, c.span_id as call_span_id, c.outcome as call_outcome, 1::bigint as place
      from calls c
      where not exists (select 1 from tries t where t.trace_id = c.trace_id and t.call_span_id = c.span_id)
      union all
      select c.task_id, c.agent, c.step, t.trace_id, t.span_id, t.started_at, t.finished_at,
        c.stated_attempt + t.place::int - 1,
        case when l.last and t.outcome = 'succeeded' then c.outcome else t.outcome end,
        case when l.last and t.outcome = 'succeeded' then c.error_class else t.error_class end,
        case when l.last and t.outcome = 'succeeded' then c.error_text else t.error_text end,
        case when l.last and t.cost_source <> 'rule' then c.cost_micros else t.cost_micros end,
        case when l.last and t.cost_source <> 'rule' then c.cost_source else t.cost_source end,
        c.model, c.started_at, c.span_id, c.outcome, t.place
      from calls c
      join tries t on t.trace_id = c.trace_id and t.call_span_id = c.span_id
      cross join lateral (select t.place = t.of_tries as last) as l),
    -- Each unit's pass: the calls of its step that succeeded before its own call (one row of each call, its
    -- place 1, counts; its own call's rows are one peer group, left out). A call stating its attempt: pass 0.
    passed as (
      select u.*,
        case when u.stated_attempt is not null then 0
          else (count(*) filter (where u.place = 1 and u.call_outcome = 'succeeded') over (
            partition by u.task_id, u.step, u.stated_attempt is null
            order by u.call_started_at, u.call_span_id
            range between unbounded preceding and current row exclude group))::int
        end as iteration
      from units u),
    numbered as (
      select p.*, coalesce(p.stated_attempt,
        row_number() over (partition by p.task_id, p.step, p.iteration
          order by p.call_started_at, p.call_span_id, p.place))::int as attempt_number
      from passed p),
    -- Each attempt's share of retry spend (packages/engine/src/core/attempts/retry-spend.ts): a failed retry its own cost, a
    -- succeeded retry its first attempt's. A pass is always written whole here, so its first attempt is at hand.
    shared as (
      select n.*,
        case when n.attempt_number = 1 then 0
          when n.outcome = 'failed' then n.cost_micros
          when n.outcome = 'succeeded' then coalesce(sum(n.cost_micros) filter (where n.attempt_number = 1)
            over (partition by n.task_id, n.step, n.iteration), 0)
          else 0 end as retry_cost_micros
      from numbered n),
    ${spanAttemptCtes(robust)}`;
}
