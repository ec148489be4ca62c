import { sql } from 'drizzle-orm';
import { budgetModelOf } from '@holdfast/protocol/inputs/spend-budget-input';
import type { Executor } from '../../db/client';
import type { CostSource } from '../../db/schema';
import { endRunningAttemptSql } from '../attempts/attempt-writes';
import { breakerSliceOf, outcomeCountedCtes } from '../breakers/breaker-outcomes';
import type { Actor } from '../kernel/context';
import { expiresAfterRetentionSql } from '../keys/claim-key';
import { fixedSql } from '../kernel/run-statement';
import { arrayLiteral } from '../kernel/sql-arrays';
import { settleBudgetsCte } from '../budgets/budget-reservations';
import { countModelNamedAtFinish } from '../budgets/seen-spend';
import type { FinishAnswer } from '@holdfast/protocol/steps/step-protocol';

const p = sql.placeholder;

/**
 * A succeeded finish, in one statement. `begun` is the key, locked, if and only if this finish may settle it as
 * things stand: begun by an attempt (agent set), still in progress with no answer kept, under this fencing token,
 * begun by this caller's token (or by none), of a task the caller's token limits allow, and completing its task
 * only if the caller says so. Then, from `begun`:
 *  - the attempt's outcome, latency and cost (a wall clock that stepped back never finishes it before it started;
 *    nothing when no attempt row was recorded for its number);
 *  - the task's reservation given back and the real cost added to its spend, and so under the fleet's budgets it
 *    reserved under (budget-reservations.ts);
 *  - the key completed with its result and the answer a second finish gets; its retention counts from now;
 *  - the outcome counted for the step's breaker and its agent's breaker for its downstream (keyed as
 *    breakerTargetsOf keys them, by the task's stored agent), a half-open one closed.
 * No row back means none of it happened: finish-step.ts then takes the long way, which tells the other cases
 * apart (superseded, finished already, settled by a person, never begun, forbidden).
 */
const settleSucceededStatement = fixedSql<SettledRow>(
  () => sql`
with begun as (
  select k.key, k.acquisitions, k.task_id, k.step, k.attempt_started_at, k.reserved_micros, k.budget_reservations,
    k.model, t.agent,
    array['step:' || t.agent || '/' || k.step]
      || case when k.downstream is null then '{}'::text[] else array['downstream:' || t.agent || '/' || k.downstream] end
        as breakers
  from idempotency_keys k join task_budgets t on t.task_id = k.task_id
  where k.key = ${p('key')}::text and k.agent is not null and k.status = 'in_progress' and k.finish_answer is null
    and k.fencing_token = ${p('fencingToken')}::bigint and k.completes_task = ${p('completesTask')}::boolean
    and (${p('actorId')}::text is null or k.begun_by is null or k.begun_by = ${p('actorId')}::text)
    and (${p('allowedAgents')}::text[] is null or t.agent = any(${p('allowedAgents')}::text[]))
    and (${p('allowedQueues')}::text[] is null or t.queue = any(${p('allowedQueues')}::text[]))
  for update of k
),
ended as (
  ${endRunningAttemptSql({
    alias: 'a',
    outcome: sql`'succeeded'`,
    finishedAt: p('now'),
    costMicros: p('costMicros'),
    costSource: p('costSource'),
    errorClass: sql`null`,
    errorText: sql`null`,
    model: p('model'),
    from: sql`from begun`,
    attempt: {
      taskId: sql`begun.task_id`,
      step: sql`begun.step`,
      attemptNumber: sql`begun.acquisitions`,
      key: sql`begun.key`,
      startedAt: sql`begun.attempt_started_at`,
    },
  })}
  returning a.retry_cost_micros
),
budget as (
  update task_budgets t set
    reserved_micros = greatest(0, t.reserved_micros - begun.reserved_micros),
    spend_micros = t.spend_micros + ${p('costMicros')}::bigint
  from begun
  where t.task_id = begun.task_id
  returning 1
),
${settleBudgetsCte(sql`${p('costMicros')}::bigint`, sql`exists (select 1 from budget)`)},
completed as (
  update idempotency_keys set
    status = 'completed', result = ${p('result')}::jsonb, error_class = null, error_text = null,
    locked_until = null, reserved_micros = 0, budget_reservations = null, updated_at = now(),
    expires_at = ${expiresAfterRetentionSql()},
    finish_answer = json_build_object('decision', 'completed', 'key', begun.key,
      'attemptNumber', begun.acquisitions, 'taskStatus', ${p('taskStatus')}::text)::jsonb
  from begun
  where idempotency_keys.key = begun.key
  returning 1
),
${outcomeCountedCtes({
  names: sql`(select breakers from begun)`,
  slice: p('slice'),
  at: p('now'),
  failing: false,
})}
select acquisitions, task_id, agent, step, attempt_started_at, model as declared_model,
  (select retry_cost_micros from ended) as retry_cost_micros
from begun`,
);

interface SettledRow {
  acquisitions: number;
  task_id: string;
  agent: string;
  step: string;
  attempt_started_at: string | null;
  declared_model: string | null;
  retry_cost_micros: string | null;
}

export interface SucceededFinish {
  key: string;
  fencingToken: number;
  costMicros: number;
  costSource: CostSource;
  /** The model the finish names, if any (a begin that declared none counts it as seen: countModelNamedAtFinish). */
  model: string | undefined;
  result: unknown;
  /** Whether the key's step completes its task; the task is then marked completed first (finish-step.ts). */
  completesTask: boolean;
  /** The task's status the answer reports. */
  taskStatus: 'active' | 'completed';
  now: Date;
}

/**
 * Settles a succeeded attempt (settleSucceededStatement): its answer, or undefined when the finish may not settle
 * it this way and nothing was written. On its own (autocommitted) or in the finish's transaction.
 */
export async function settleSucceeded(
  db: Executor,
  actor: Actor | undefined,
  finish: SucceededFinish,
): Promise<FinishAnswer | undefined> {
  const limits = actor?.type === 'agent' ? actor : undefined;
  const [row] = await settleSucceededStatement(db, {
    key: finish.key,
    fencingToken: finish.fencingToken,
    completesTask: finish.completesTask,
    actorId: actor?.id ?? null,
    allowedAgents: limits?.allowedAgents ? arrayLiteral(limits.allowedAgents) : null,
    allowedQueues: limits?.allowedQueues ? arrayLiteral(limits.allowedQueues) : null,
    now: finish.now.toISOString(),
    slice: breakerSliceOf(finish.now),
    costMicros: finish.costMicros,
    costSource: finish.costSource,
    model: finish.model === undefined ? null : budgetModelOf(finish.model),
    result: JSON.stringify(finish.result ?? null),
    taskStatus: finish.taskStatus,
  });
  if (!row) return undefined;
  if (row.retry_cost_micros !== null && row.attempt_started_at !== null) {
    await countModelNamedAtFinish(db, {
      taskId: row.task_id,
      agent: row.agent,
      step: row.step,
      startedAt: new Date(row.attempt_started_at),
      costMicros: finish.costMicros,
      retryCostMicros: Number(row.retry_cost_micros),
      declaredModel: row.declared_model,
      finishModel: finish.model,
    });
  }
  return { decision: 'completed', key: finish.key, attemptNumber: row.acquisitions, taskStatus: finish.taskStatus };
}
