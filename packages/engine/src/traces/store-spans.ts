import { type SQL, sql } from 'drizzle-orm';
import type { Transaction } from '../db/client';
import { arrayParam } from '../core/kernel/sql-arrays';
import { attemptsWritten, TRY_COLUMNS } from './attempts-from-spans';
import { seenSpendOfWrittenCte } from '../core/budgets/seen-spend';
import { spanBatchRelation } from './span-batch';
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
  const batch = spanBatchRelation(calls, tries);
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
        stated_attempt, outcome, error_class, error_text, cost_micros, cost_source, http_status, resend_count, model
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
        resend_count, sender_agents, model)
      select kind, trace_id, span_id, parent_span_id, task_id, agent, step, model_call, started_at, finished_at,
        stated_attempt, outcome, error_class, error_text, cost_micros, cost_source, http_status, resend_count,
        case when kind = 'http_try' then ${senders} end, model
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
    ${attemptsWritten(robust)},
    ${seenSpendOfWrittenCte()}
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
