import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { readTaskBudget } from '../budgets/task-budget';
import { readTaskAgent } from '../tasks/task-agent';
import { knownOwnerOrDefault } from '../holds/known-owner';
import { fixedSql } from '../kernel/run-statement';
import type { BeginStepRequest } from '@holdfast/protocol/steps/step-protocol';

/** The names that decide who may act on a task, and who gets its holds. */
export interface TaskNames {
  agent: string;
  queue: string;
  owner: string;
}

const placeholder = sql.placeholder;

/**
 * A task's row, made by its first begin, in the begin's transaction: the allowance its begin gave, unless an
 * admin's override of the step's policy sets another (read in the same statement), an owner known to Holdfast
 * or the default owner (known-owner.ts), and its deadline from this begin. The same statement stores who the
 * task belongs to (task_agents) unless a span, an attempt report or another begin stored it first: the row is
 * then made only for that agent, on the queue stored with it. Nothing is made when the task has a row already (a
 * concurrent first begin made it: the insert waits for that one to commit) or belongs to another agent; the
 * statement then answers the stored agent and queue with `made` false, and no owner.
 */
const insertNewTask = fixedSql<TaskNames & { made: boolean }>(
  () => sql`
    with registered as (
      insert into task_agents (task_id, agent, queue, first_seen_through)
      values (${placeholder('taskId')}::text, ${placeholder('agent')}::text, ${placeholder('queue')}::text, 'step')
      on conflict (task_id) do nothing
      returning agent, queue),
    belongs as (
      select agent, queue from registered
      union all
      select agent, queue from task_agents
      where task_id = ${placeholder('taskId')}::text and not exists (select 1 from registered)),
    made as (
      insert into task_budgets (task_id, agent, queue, owner, parent_task_id, retry_allowance, spend_ceiling_micros,
        time_allowance_ms, deadline)
      select ${placeholder('taskId')}::text, b.agent, b.queue,
        ${knownOwnerOrDefault(placeholder('owner'), placeholder('defaultOwner'))},
        ${placeholder('parentTaskId')}::text,
        coalesce(
          (select retry_allowance from step_policies where agent = ${placeholder('agent')}::text and step = ${placeholder('step')}::text),
          ${placeholder('retryAllowance')}::int),
        ${placeholder('spendCeilingMicros')}::bigint, ${placeholder('timeAllowanceMs')}::bigint,
        ${placeholder('deadline')}::timestamptz
      from belongs b where b.agent = ${placeholder('agent')}::text
      on conflict (task_id) do nothing
      returning agent, queue, owner)
    select agent, queue, owner, true as made from made
    union all
    select agent, queue, null, false from belongs where not exists (select 1 from made)`,
);

/**
 * The task's names on a begin of a task not read yet: its row made with the begin's own values (insertNewTask),
 * or, when another begin made it first, that row (`made` false: the caller judges the request against it).
 */
export async function taskOnBegin(
  db: Executor,
  request: BeginStepRequest & { queue: string },
  now: Date,
  defaultOwner: string,
): Promise<{ task: TaskNames; made: boolean }> {
  const [created] = await insertNewTask(db, {
    taskId: request.taskId,
    agent: request.agent,
    queue: request.queue,
    owner: request.owner,
    defaultOwner,
    parentTaskId: request.parentTaskId ?? null,
    step: request.step,
    retryAllowance: request.retryAllowance,
    spendCeilingMicros: request.spendCeilingMicros,
    timeAllowanceMs: request.timeAllowanceMs,
    deadline: new Date(now.getTime() + request.timeAllowanceMs).toISOString(),
  });
  if (created?.made) return { task: { agent: created.agent, queue: created.queue, owner: created.owner }, made: true };
  const existing = await readTaskBudget(db, request.taskId);
  if (existing) return { task: existing, made: false };
  // Stored first by a span, an attempt report or a dead letter of another agent (a row of ours would have made the
  // task): the caller judges the request against those names and refuses it. Read again when that request
  // committed after this statement began, which its snapshot does not see.
  const stored = created ?? (await readTaskAgent(db, request.taskId));
  if (stored) return { task: { agent: stored.agent, queue: stored.queue, owner: '' }, made: false };
  throw new Error(`beginStep: task "${request.taskId}" conflicted but has no row`);
}
