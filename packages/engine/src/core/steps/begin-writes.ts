import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import { runningAttemptCtes } from '../attempts/attempt-writes';
import { counterStripeSql } from '../kernel/counter-stripe';
import { fixedSql } from '../kernel/run-statement';
import { sliceStartOf } from '../retry-pools/pool-usage';
import { BUDGET_COLUMNS, type BudgetRow } from './budget-row';
import type { BeginStepRequest } from '@holdfast/protocol/steps/step-protocol';
import type { BudgetReservation } from '../budgets/budget-reservations';

const p = sql.placeholder;

/**
 * What a begin writes once its key is claimed, in one statement (each CTE below was a statement of its own, and
 * every round trip costs the agent's process more CPU than PostgreSQL spends on the write):
 *  - `recorded`: the attempt row, marked running, unless its number was recorded already (a redelivery takes
 *    no identity twice: attempt_identities);
 *  - `attached`: what the finish and a dead letter need, written onto the key, returning what the previous
 *    attempt left there: its reservation (a holder that died without finishing; this one replaces it) and
 *    its start;
 *  - `reserved`: the task's gate, one guarded UPDATE (see reserveSql);
 *  - `counted`: a first attempt counted in its retry pools' usage (in its connection's stripe). A retry (charged_retry) takes from the
 *    pools instead, after this statement (take-retry.ts locks the pools first).
 * Data-modifying CTEs all run, read or not; a refused gate returns no budget, and the caller rolls the
 * transaction back, so nothing of it stays.
 */
const beginWrites = fixedSql<BeginWritesRow>(
  () => sql`
with ${runningAttemptCtes({
    taskId: p('taskId'),
    agent: p('agent'),
    step: p('step'),
    iteration: p('iteration'),
    attemptNumber: p('attemptNumber'),
    key: p('key'),
    runKey: p('runKey'),
    startedAt: p('now'),
    source: p('source'),
  })},
previous as (
  select reserved_micros, attempt_started_at, budget_reservations from idempotency_keys where key = ${p('key')}::text
),
attached as (
  update idempotency_keys set
    agent = ${p('agent')}::text, queue = ${p('queue')}::text, begun_by = ${p('begunBy')}::text, payload = ${p('payload')}::jsonb, reserved_micros = ${p('estimate')}::bigint,
    downstream = ${p('downstream')}::text, completes_task = ${p('final')}::boolean,
    attempt_started_at = case when exists (select 1 from recorded) then ${p('now')}::timestamptz end,
    finish_answer = null, budget_reservations = null
  from previous
  where idempotency_keys.key = ${p('key')}::text
  returning previous.reserved_micros as leftover, previous.attempt_started_at as previous_started_at,
    previous.budget_reservations as previous_budget_reservations
),
reserved as (
  ${reserveSql()}
),
counted as (
  insert into retry_pool_usage (agent, step, slice_start, stripe, first_attempts)
  select ${p('agent')}::text, ${p('step')}::text, ${p('sliceStart')}::timestamptz, ${counterStripeSql}, 1
  from reserved where not reserved.charged_retry
  on conflict (agent, step, slice_start, stripe) do update set first_attempts = retry_pool_usage.first_attempts + 1
)
select attached.previous_started_at, attached.leftover, attached.previous_budget_reservations, reserved.*
from attached left join reserved on true`,
);

/**
 * Whether an attempt takes a retry from the task's allowance, in SQL over the task's row: a retry (attempt 2+)
 * does, unless the key's previous attempt began before the task's last redrive. A redrive grants a fresh
 * allowance and runs the failed step again; that run is the first of the new allowance. The one rule, for the
 * begin's reservation (reserveSql) and for reading why it was refused (begin-step.ts).
 */
export function chargesRetrySql(attempt: {
  attemptNumber: SQLWrapper;
  previousStartedAt: SQLWrapper;
  lastRedriveAt: SQLWrapper;
}): SQL {
  const { attemptNumber, previousStartedAt, lastRedriveAt } = attempt;
  return sql`(${attemptNumber}::int > 1 and (${previousStartedAt}::timestamptz is null or ${lastRedriveAt} is null
      or ${lastRedriveAt} <= ${previousStartedAt}::timestamptz))`;
}

/**
 * The task's gate, one guarded UPDATE: active, before its deadline, a retry left (for a retry of this
 * allowance: chargesRetrySql), and room under the spend ceiling for what is spent, what running attempts
 * reserved and this attempt's estimate. Once spend and reservations reach the ceiling nothing begins, whatever
 * the estimate (a zero estimate would otherwise always fit). Concurrent begins queue on the row, each seeing the
 * last one's reservation.
 */
function reserveSql(): SQL {
  const charges = chargesRetrySql({
    attemptNumber: p('attemptNumber'),
    previousStartedAt: sql`attached.previous_started_at`,
    lastRedriveAt: sql`task.last_redrive_at`,
  });
  const retryCost = sql`(case when ${charges} then 1 else 0 end)`;
  const reservedByOthers = sql`greatest(0, task.reserved_micros - attached.leftover)`;
  const returned = sql.raw(
    BUDGET_COLUMNS.split(', ')
      .map((column) => `task.${column}`)
      .join(', '),
  );
  return sql`update task_budgets task set
    reserved_micros = ${reservedByOthers} + ${p('estimate')}::bigint,
    retries_used = task.retries_used + ${retryCost},
    updated_at = now()
  from attached
  where task.task_id = ${p('taskId')}::text and task.status = 'active' and task.deadline > ${p('now')}::timestamptz
    and task.retries_used + ${retryCost} <= task.retry_allowance
    and task.spend_micros + ${reservedByOthers} + ${p('estimate')}::bigint <= task.spend_ceiling_micros
    and task.spend_micros + ${reservedByOthers} < task.spend_ceiling_micros
  returning ${returned}, ${charges} as charged_retry`;
}

type BeginWritesRow = {
  previous_started_at: string | null;
  leftover: string;
  previous_budget_reservations: BudgetReservation[] | null;
} & ((BudgetRow & { charged_retry: boolean }) | { [column in keyof BudgetRow | 'charged_retry']: null });

export interface BeginWrites {
  /** When the key's previous attempt began (null for a first attempt): the refusal's reading needs it. */
  previousStartedAt: string | null;
  /** What a previous attempt that never finished left reserved under the fleet's budgets: this one gives it back. */
  leftover: { micros: number; reservations: BudgetReservation[] } | undefined;
  /** The task's row after the reservation; undefined when its gate refused this attempt. */
  budget: (BudgetRow & { charged_retry: boolean }) | undefined;
}

/** Runs the begin's writes (beginWrites) in the claim's transaction. */
export async function writeBegin(
  tx: Transaction,
  request: BeginStepRequest & { queue: string },
  claimed: { key: string; attemptNumber: number; estimate: number; now: Date },
  by: { begunBy: string | null; source: 'http' | 'library' },
): Promise<BeginWrites> {
  const [row] = await beginWrites(tx, {
    taskId: request.taskId,
    step: request.step,
    iteration: request.iteration ?? 0,
    attemptNumber: claimed.attemptNumber,
    now: claimed.now.toISOString(),
    agent: request.agent,
    key: claimed.key,
    runKey: request.runKey ?? null,
    source: by.source,
    queue: request.queue,
    begunBy: by.begunBy,
    payload: JSON.stringify(request.content ?? null),
    estimate: claimed.estimate,
    downstream: request.downstream ?? null,
    final: request.final,
    sliceStart: sliceStartOf(claimed.now).toISOString(),
  });
  if (!row) throw new Error(`beginStep: key "${claimed.key}" was claimed but is not there`);
  const {
    previous_started_at: previousStartedAt,
    leftover,
    previous_budget_reservations: reservations,
    ...budget
  } = row;
  return {
    previousStartedAt,
    leftover: reservations?.length ? { micros: Number(leftover), reservations } : undefined,
    budget: budget.status === null ? undefined : (budget as BeginWrites['budget']),
  };
}
