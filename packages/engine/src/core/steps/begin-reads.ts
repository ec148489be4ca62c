import { sql } from 'drizzle-orm';
import { budgetModelOf } from '@holdfast/protocol/inputs/spend-budget-input';
import type { Executor } from '../../db/client';
import { breakerGateOf, breakersNotClosedSql, type BreakerGate, type BreakerRow } from '../breakers/breaker-gate';
import { breakerTargetsOf } from '../breakers/breaker-targets';
import { arrayLiteral } from '../kernel/sql-arrays';
import { fixedSql } from '../kernel/run-statement';
import { pauseGateOf, pausesCoveringSql, type PauseGate, type PauseRow } from '../pauses/pause-gate';
import type { TaskNames } from './new-task';
import {
  type SpendBudget,
  spendBudgetOfRow,
  type SpendBudgetRow,
  spendBudgetsMaybeCoveringSql,
} from '../budgets/spend-budgets';
import type { BeginStepRequest } from '@holdfast/protocol/steps/step-protocol';

const p = sql.placeholder;

interface BeginReadsRow {
  [column: string]: unknown;
  agent: string | null;
  queue: string | null;
  owner: string | null;
  registered_agent: string | null;
  completed: boolean;
  request_hash: string | null;
  result: unknown;
  pauses: PauseRow[];
  breakers: BreakerRow[];
  spend_budgets: SpendBudgetRow[];
}

/**
 * Everything a begin reads before it writes, in one statement by primary keys and small indexes: the task's
 * stored names (they authorize the caller), its step's key (a repeat of a completed step needs nothing more),
 * the pauses and breakers that may hold the step, and the spend budgets that may cover it (the task's queue and owner
 * are judged after the claim, which may make the task), all read by the request's agent (a request naming another
 * agent than the task's is refused before they count). `completed` is false for a key past its retention, which
 * a claim takes as a new operation; the key is not read for a task with no row.
 */
const beginReadsStatement = fixedSql<BeginReadsRow>(
  () => sql`
    select task.agent, task.queue, task.owner, registered.agent as registered_agent,
      coalesce(k.status = 'completed' and k.expires_at > now(), false) as completed, k.request_hash, k.result,
      (select coalesce(json_agg(covering order by covering.paused_at), '[]'::json)
        from (${pausesCoveringSql({ agent: p('agent'), step: p('step'), downstream: p('downstream'), at: p('now') })}) covering) as pauses,
      (select coalesce(json_agg(resting), '[]'::json)
        from (${breakersNotClosedSql(p('breakerTargets'))}) resting) as breakers,
      (select coalesce(json_agg(budget order by budget.id), '[]'::json)
        from (${spendBudgetsMaybeCoveringSql({ agent: p('agent'), step: p('step'), downstream: p('downstream'), model: p('model') })}) budget)
        as spend_budgets
    from (select 1) as one
    left join task_agents registered on registered.task_id = ${p('taskId')}::text
    left join task_budgets task on task.task_id = ${p('taskId')}::text
    left join idempotency_keys k on k.key = ${p('key')}::text and task.task_id is not null`,
);

export interface BeginFacts {
  /** The task's stored names; undefined for a task with no row yet. */
  task: TaskNames | undefined;
  /** The agent the task id is stored for, by whichever path saw it first (task_agents); undefined if none has. */
  registeredAgent: string | undefined;
  /** The step's key holds a completed result within its retention. */
  completed: boolean;
  requestHash: string | null;
  result: unknown;
  pauseGate: PauseGate;
  breakerGate: BreakerGate;
  /** The fleet's spend budgets that may cover the step (spend-budget.ts picks those that do). */
  spendBudgets: SpendBudget[];
}

/** Reads what a begin decides by (beginReadsStatement). */
export async function readBeginFacts(
  db: Executor,
  request: BeginStepRequest,
  key: string,
  now: Date,
): Promise<BeginFacts> {
  const targets = breakerTargetsOf(request).map((target) => target.target);
  const [row] = await beginReadsStatement(db, {
    taskId: request.taskId,
    key,
    agent: request.agent,
    step: request.step,
    downstream: request.downstream ?? null,
    model: request.model === undefined ? null : budgetModelOf(request.model),
    now: now.toISOString(),
    breakerTargets: arrayLiteral(targets),
  });
  if (!row) throw new Error('beginStep: the begin reads returned no row');
  return {
    task: row.agent === null ? undefined : { agent: row.agent, queue: row.queue!, owner: row.owner! },
    registeredAgent: row.registered_agent ?? undefined,
    completed: row.completed,
    requestHash: row.request_hash,
    result: row.result,
    pauseGate: pauseGateOf(row.pauses),
    breakerGate: breakerGateOf(row.breakers, now),
    spendBudgets: row.spend_budgets.map(spendBudgetOfRow),
  };
}
