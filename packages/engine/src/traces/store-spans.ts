import { type SQL, sql } from 'drizzle-orm';
import type { Transaction } from '../db/client';
import { arrayParam } from '../core/kernel/sql-arrays';
import type { SpanAttempt } from './span-to-attempt';
import type { SpanTry } from './span-to-try';

/**
 * The statements of one export batch's transaction (ingest-spans.ts runs them in order): lock,
 * store the spans once each, then number the attempts of every step execution that gained one.
 * The batch travels as typed arrays (sql-arrays.ts), read once by the statement that stores it.
 */

/** A step execution (task and step) that gained a span; `earlier`: it had attempts before this batch. */
export interface GainingExecution {
  taskId: string;
  step: string;
  earlier: boolean;
}

/** Times travel as epoch milliseconds: PostgreSQL adds them to the epoch faster than it parses timestamp text. */
const EPOCH = sql.raw(`timestamptz '1970-01-01 00:00:00+00'`);

/** A stored try's columns that numbering reads (as `candidate_tries`). */
const TRY_COLUMNS = sql.raw(`t.trace_id, t.span_id, t.parent_span_id, t.started_at, t.finished_at, t.outcome,
  t.error_class, t.error_text, t.cost_micros, t.cost_source, t.resend_count, t.sender_agents`);

/**
 * The most advisory locks one batch's transaction takes: PostgreSQL's lock table is shared by every session, so a
 * batch with more keys is stored in pieces of at most this many (batch-pieces.ts), each its own transaction.
 */
export const MAX_LOCKS_PER_BATCH = 1_000;

/** A stored span some tries of the batch name as their parent; `task` only when it is a model call. */
export interface StoredParent {
  traceId: string;
  spanId: string;
  /** The model call's task, null when the parent is no model call (its children are no tries). */
  taskId: string | null;
}

/**
 * The stored parents of tries whose parent is not in the batch, read before any lock: a stored span
 * never changes, so what is found here stays true (a parent not found yet is looked for again, under
 * the locks, by storeSpans).
 */
export async function storedParents(tx: Transaction, tries: readonly SpanTry[]): Promise<StoredParent[]> {
  if (tries.length === 0) return [];
  const rows = await tx.execute<{ trace_id: string; span_id: string; task_id: string | null }>(sql`
    select distinct p.trace_id, p.span_id, case when p.kind = 'call' and p.model_call then p.task_id end as task_id
    from trace_spans p
    join unnest(${arrayParam(
      tries.map((t) => t.traceId),
      'text',
    )}, ${arrayParam(
      tries.map((t) => t.parentSpanId),
      'text',
    )}) as t(trace_id, span_id) on p.trace_id = t.trace_id and p.span_id = t.span_id`);
  return rows.map((row) => ({ traceId: row.trace_id, spanId: row.span_id, taskId: row.task_id }));
}

/**
 * Locks, in one order every batch follows (so no two batches deadlock): first the traces of the
 * batch's model calls and tries (a try and its call may come in two batches at once: whichever
 * goes second sees the other), then the tasks that gain a span (their attempts are numbered, and
 * their agent checked, by one batch at a time). Only these keys: a batch waits only for batches
 * that share a trace or a task with it, never for all of them. At most MAX_LOCKS_PER_BATCH keys
 * (a larger batch is split first). The statement, to be sent before storeSpans'.
 */
export function lockForSpans(traces: string[], tasks: string[]): SQL {
  const keys = [
    ...[...new Set(traces)].sort().map((trace) => `t:${trace}`),
    ...[...new Set(tasks)].sort().map((task) => `k:${task}`),
  ];
  if (keys.length > MAX_LOCKS_PER_BATCH)
    throw new Error(`A batch locks at most ${MAX_LOCKS_PER_BATCH} keys (${keys.length}): split it first`);
  return sql`
    select count(pg_advisory_xact_lock(hashtextextended(key, 0)))
    from unnest(${arrayParam(keys, 'text')}) as k(key)`;
}

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
function attemptsWritten(robust: boolean) {
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
        c.outcome, c.error_class, c.error_text, c.cost_micros, c.cost_source,
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
        c.started_at, c.span_id, c.outcome, t.place
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
    identities as (
      insert into attempt_identities (task_id, step, iteration, attempt_number, started_at)
      select task_id, step, iteration, attempt_number, started_at from numbered
      ${robust ? sql`on conflict do nothing returning task_id, step, iteration, attempt_number` : sql``}),
    written as (
      insert into attempts (task_id, agent, step, iteration, attempt_number, started_at, finished_at, latency_ms,
        outcome, error_class, error_text, cost_micros, retry_cost_micros, cost_source, idempotency_key, source)
      select n.task_id, n.agent, n.step, n.iteration, n.attempt_number, n.started_at, n.finished_at,
        least(extract(epoch from (n.finished_at - n.started_at)) * 1000, 2147483647)::int, n.outcome,
        n.error_class, n.error_text, n.cost_micros, n.retry_cost_micros, n.cost_source,
        'span:' || n.trace_id || '/' || n.span_id, 'traces'
      from shared n
      ${
        robust
          ? sql`join identities i on i.task_id = n.task_id and i.step = n.step and i.iteration = n.iteration
              and i.attempt_number = n.attempt_number`
          : sql``
      }
      returning 1)`;
}

export interface StoredSpans {
  rejected: { spanId: string; reason: string }[];
  gaining: GainingExecution[];
  /** An execution gained a try through a model call stored by a batch that committed after the locks were chosen. */
  unlockedTask: boolean;
}

/** The agents and queues the sender's token is limited to (null: not limited that way). */
export interface SenderLimits {
  agents: readonly string[] | null;
  queues: readonly string[] | null;
}

/**
 * Stores the batch's calls and tries (each once: a span seen before is left as it is), writes the
 * attempts of the executions that are new (all their calls are in this batch, so nothing to read
 * back), and names every execution that gained a span: those that had attempts before are numbered
 * again afterwards (forgetAttempts, numberAttempts). A task belongs to its agent and queue in
 * task_agents, stored by whichever path saw it first; a task seen first here is stored there with the
 * agent of its first span in this batch, on that agent's own queue. A call of another agent, or of a
 * task on a queue the sender's token may not write, is rejected, and a token limited to queues makes
 * no task outside them. A try counts only under a model call of an agent its sender may act for.
 */
export async function storeSpans(
  tx: Transaction,
  calls: readonly SpanAttempt[],
  tries: readonly SpanTry[],
  sender: SenderLimits,
  lockedTasks: readonly string[] | null,
  robust: boolean,
): Promise<StoredSpans> {
  const senderAgents = sender.agents;
  const senderQueues = sender.queues === null ? sql`null::text[]` : arrayParam(sender.queues, 'text');
  const column = <T extends string | number | boolean | null>(
    ofCall: (call: SpanAttempt) => T,
    ofTry: (spanTry: SpanTry) => T,
  ) => [...calls.map(ofCall), ...tries.map(ofTry)];
  const none = () => null;
  const batch = sql`unnest(
    ${arrayParam(
      column(
        () => 'call',
        () => 'http_try',
      ),
      'text',
    )},
    ${arrayParam(
      column(
        (c) => c.traceId,
        (t) => t.traceId,
      ),
      'text',
    )},
    ${arrayParam(
      column(
        (c) => c.spanId,
        (t) => t.spanId,
      ),
      'text',
    )},
    ${arrayParam(
      column(
        (c) => c.parentSpanId,
        (t) => t.parentSpanId,
      ),
      'text',
    )},
    ${arrayParam(
      column((c) => c.taskId, none),
      'text',
    )},
    ${arrayParam(
      column((c) => c.agent, none),
      'text',
    )},
    ${arrayParam(
      column((c) => c.step, none),
      'text',
    )},
    ${arrayParam(
      column(
        (c) => c.modelCall,
        () => false,
      ),
      'boolean',
    )},
    ${arrayParam(
      column(
        (c) => c.startedAtMs,
        (t) => t.startedAtMs,
      ),
      'bigint',
    )},
    ${arrayParam(
      column(
        (c) => c.finishedAtMs,
        (t) => t.finishedAtMs,
      ),
      'bigint',
    )},
    ${arrayParam(
      column((c) => c.statedAttempt, none),
      'int',
    )},
    ${arrayParam(
      column(
        (c) => c.outcome,
        (t) => t.outcome,
      ),
      'text',
    )},
    ${arrayParam(
      column(
        (c) => c.errorClass,
        (t) => t.errorClass,
      ),
      'error_class',
    )},
    ${arrayParam(
      column(
        (c) => c.errorText,
        (t) => t.errorText,
      ),
      'text',
    )},
    ${arrayParam(
      column(
        (c) => c.costMicros,
        (t) => t.costMicros,
      ),
      'bigint',
    )},
    ${arrayParam(
      column(
        (c) => c.costSource,
        (t) => t.costSource,
      ),
      'text',
    )},
    ${arrayParam(
      column(none, (t) => t.httpStatus),
      'int',
    )},
    ${arrayParam(
      column(none, (t) => t.resendCount),
      'int',
    )})
    as b(kind, trace_id, span_id, parent_span_id, task_id, agent, step, model_call, started_ms, finished_ms,
      stated_attempt, outcome, error_class, error_text, cost_micros, cost_source, http_status, resend_count)`;
  // Each task's agent by its first call here (by start, then span id): the owner of a task seen first now.
  const firstAgents = new Map<string, SpanAttempt>();
  for (const call of calls) {
    const first = firstAgents.get(call.taskId);
    if (
      !first ||
      call.startedAtMs < first.startedAtMs ||
      (call.startedAtMs === first.startedAtMs && call.spanId < first.spanId)
    )
      firstAgents.set(call.taskId, call);
  }
  const modelCallTraces = [...new Set(calls.filter((call) => call.modelCall).map((call) => call.traceId))];
  const senders = senderAgents === null ? sql`null::text[]` : arrayParam(senderAgents, 'text');
  // The spans this statement writes: those it inserted (robust), or those it found not stored yet.
  const written = robust ? sql`stored` : sql`fresh`;
  const locked = lockedTasks === null ? sql`null::text[]` : arrayParam(lockedTasks, 'text');

  const rows = await tx.execute<{
    tag: 'execution' | 'rejected';
    task_id: string;
    step: string | null;
    earlier: boolean | null;
    locked: boolean | null;
    span_id: string | null;
    owner: string | null;
  }>(sql`
    with batch as (
      select kind, trace_id, span_id, parent_span_id, task_id, agent, step, model_call,
        ${EPOCH} + started_ms * interval '1 millisecond' as started_at,
        ${EPOCH} + finished_ms * interval '1 millisecond' as finished_at,
        stated_attempt, outcome, error_class, error_text, cost_micros, cost_source, http_status, resend_count
      from ${batch}),
    firsts as (
      select * from unnest(${arrayParam([...firstAgents.keys()], 'text')}, ${arrayParam(
        [...firstAgents.values()].map((first) => first.agent),
        'text',
      )}) as t(task_id, first_agent)),
    -- Tasks seen first here are stored as their first span's agent's, on its own queue: never outside the
    -- sender's queues. A task stored meanwhile by a request this snapshot cannot see is left out of both.
    registered as (
      insert into task_agents (task_id, agent, queue, first_seen_through)
      select task_id, first_agent, first_agent, 'span' from firsts
      where ${senderQueues} is null or first_agent = any(${senderQueues})
      on conflict (task_id) do nothing
      returning task_id, agent, queue),
    -- Each stored owner by its key: the planner cannot size the batch's list, and a join could read all of task_agents.
    owners as (
      select task_id, agent, queue from registered
      union all
      select f.task_id, a.agent, a.queue from firsts f
      cross join lateral (select agent, queue from task_agents where task_id = f.task_id) a),
    accepted as (
      select b.* from batch b left join owners o on o.task_id = b.task_id
      where b.kind = 'http_try' or (o.agent = b.agent and (${senderQueues} is null or o.queue = any(${senderQueues})))),
    -- The spans not stored yet. Robust: insert them all, a span seen before left as it is. Otherwise, as every
    -- writer of a span holds its task's or its trace's lock, the stored ones are known: only the others are written.
    ${
      robust
        ? sql``
        : sql`fresh as (
      select a.* from accepted a
      where not exists (select 1 from trace_spans x where x.trace_id = a.trace_id and x.span_id = a.span_id)),`
    }
    stored as (
      insert into trace_spans (kind, trace_id, span_id, parent_span_id, task_id, agent, step, model_call, started_at,
        finished_at, stated_attempt, outcome, error_class, error_text, cost_micros, cost_source, http_status,
        resend_count, sender_agents)
      select kind, trace_id, span_id, parent_span_id, task_id, agent, step, model_call, started_at, finished_at,
        stated_attempt, outcome, error_class, error_text, cost_micros, cost_source, http_status, resend_count,
        case when kind = 'http_try' then ${senders} end
      from ${robust ? sql`accepted` : sql`fresh`}
      ${robust ? sql`on conflict (trace_id, span_id) do nothing returning *` : sql``}),
    new_tries as (select trace_id, parent_span_id from ${written} where kind = 'http_try'),
    -- The model calls the new tries are tries of: in this batch, or stored before it.
    parents as (
      select trace_id, span_id, task_id, step, agent from accepted where kind = 'call' and model_call
      union
      select p.trace_id, p.span_id, p.task_id, p.step, p.agent from trace_spans p
      join new_tries t on p.trace_id = t.trace_id and p.span_id = t.parent_span_id
      where p.kind = 'call' and p.model_call),
    -- Each execution that gained a span, asked once whether it had calls before (the statement's snapshot does
    -- not see the calls it stores).
    gaining as materialized (
      select g.task_id, g.step,
        exists (select 1 from trace_spans s where s.task_id = g.task_id and s.step = g.step and s.kind = 'call') as earlier
      from (
        select task_id, step from ${written} where kind = 'call'
        union
        select p.task_id, p.step from new_tries t
        join parents p on p.trace_id = t.trace_id and p.span_id = t.parent_span_id
        where ${senders} is null or p.agent = any(${senders})) as g),
    -- New executions: every call of theirs was stored just now, and their tries are here or waited for them. NOT IN
    -- is a hashed lookup per call, and safe: a stored call has a task and a step (the trace_spans_kind_named
    -- check), so no NULL can make it answer NULL.
    calls as (
      select s.* from ${written} s
      where s.kind = 'call'
        and (s.task_id, s.step) not in (select task_id, step from gaining where earlier)),
    -- Tries stored before their call came, looked for only in the traces that have any.
    waiting_traces as materialized (
      select x.trace_id from unnest(${arrayParam(modelCallTraces, 'text')}) as x(trace_id)
      where exists (select 1 from trace_spans t where t.trace_id = x.trace_id and t.kind = 'http_try')),
    waiting_calls as materialized (
      select c.trace_id, c.span_id from calls c
      where c.model_call and c.trace_id in (select trace_id from waiting_traces)),
    -- Materialized: the planner cannot size the rows just written, and would read the union again for each call.
    candidate_tries as materialized (
      select trace_id, span_id, parent_span_id, started_at, finished_at, outcome, error_class, error_text,
        cost_micros, cost_source, resend_count, ${robust ? sql`sender_agents` : senders} as sender_agents
      from ${written} where kind = 'http_try'
      union all
      select ${TRY_COLUMNS} from waiting_calls c
      join trace_spans t on t.trace_id = c.trace_id and t.parent_span_id = c.span_id and t.kind = 'http_try'),
    ${attemptsWritten(robust)}
    -- Only what the caller acts on: executions to number again, and any whose task it did not lock.
    select 'execution' as tag, g.task_id, g.step, g.earlier,
      (${locked} is null or g.task_id = any(${locked})) as locked, null as span_id, null as owner
    from gaining g
    where g.earlier or not (${locked} is null or g.task_id = any(${locked}))
    union all
    select 'rejected', b.task_id, null, null, null, b.span_id, o.agent
    from batch b left join owners o on o.task_id = b.task_id
    where b.kind = 'call'
      and (o.agent is distinct from b.agent or not (${senderQueues} is null or o.queue = any(${senderQueues})))`);

  const result: StoredSpans = { rejected: [], gaining: [], unlockedTask: false };
  for (const row of rows) {
    if (row.tag === 'rejected') {
      result.rejected.push({ spanId: row.span_id!, reason: rejectionReason(row.task_id, row.owner, sender) });
    } else {
      result.gaining.push({ taskId: row.task_id, step: row.step!, earlier: row.earlier === true });
      if (row.locked !== true) result.unlockedTask = true;
    }
  }
  return result;
}

/** The executions as a relation `executions(task_id, step)`. */
function executionsOf(executions: readonly GainingExecution[]) {
  return sql`(select * from unnest(${arrayParam(
    executions.map((e) => e.taskId),
    'text',
  )}, ${arrayParam(
    executions.map((e) => e.step),
    'text',
  )}) as e(task_id, step))`;
}

/**
 * Takes the attempts of executions that had some before this batch out of the log (and their
 * identities), to be numbered afresh. The days of their spans bound the partitions searched.
 */
export async function forgetAttempts(tx: Transaction, executions: readonly GainingExecution[]): Promise<void> {
  if (executions.length === 0) return;
  await tx.execute(sql`
    with executions as ${executionsOf(executions)},
    calls as (
      select s.trace_id, s.span_id, s.started_at from trace_spans s
      join executions e on s.task_id = e.task_id and s.step = e.step where s.kind = 'call'),
    spans as (
      select started_at from calls
      union all
      select t.started_at from calls c
      join trace_spans t on t.trace_id = c.trace_id and t.parent_span_id = c.span_id and t.kind = 'http_try'),
    bounds as (select min(started_at) as earliest, max(started_at) as latest from spans),
    gone as (
      delete from attempts a using executions e
      where a.task_id = e.task_id and a.step = e.step and a.idempotency_key like 'span:%'
        and a.started_at >= (select earliest from bounds) and a.started_at <= (select latest from bounds)
      returning a.task_id, a.step, a.iteration, a.attempt_number)
    delete from attempt_identities i using gone
    where i.task_id = gone.task_id and i.step = gone.step and i.iteration = gone.iteration
      and i.attempt_number = gone.attempt_number`);
}

/** Numbers the attempts of these executions afresh from all their stored spans, and writes them. */
export async function numberAttempts(tx: Transaction, executions: readonly GainingExecution[]): Promise<void> {
  if (executions.length === 0) return;
  await tx.execute(sql`
    with executions as ${executionsOf(executions)},
    calls as (
      select s.* from trace_spans s
      join executions e on s.task_id = e.task_id and s.step = e.step where s.kind = 'call'),
    candidate_tries as materialized (
      select ${TRY_COLUMNS} from calls c
      join trace_spans t on t.trace_id = c.trace_id and t.parent_span_id = c.span_id and t.kind = 'http_try'),
    ${attemptsWritten(true)}
    select count(*) from written`);
}

/**
 * Why a call was not taken. Only a sender that may act for every agent is told whose the task is: a limited
 * token learns that the task is not its own, as every other path answers it (NOT_YOURS).
 */
function rejectionReason(taskId: string, owner: string | null, sender: SenderLimits): string {
  if (owner === null)
    return sender.queues !== null
      ? `task "${taskId}" would be on a queue outside this token's limits`
      : `task "${taskId}" was first stored by another request at the same moment: send the span again`;
  if (sender.agents !== null || sender.queues !== null)
    return `task "${taskId}" is not this token's: it belongs to an agent or queue outside its limits`;
  return `task "${taskId}" belongs to agent "${owner}"`;
}
