import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { budgetModelOf } from '@holdfast/protocol/inputs/spend-budget-input';
import type { Transaction } from '../../db/client';
import { runningAttemptCtes } from '../attempts/attempt-writes';
import { counterStripeSql } from '../kernel/counter-stripe';
import { fixedSql } from '../kernel/run-statement';
import { sliceStartOf } from '../retry-pools/pool-usage';
import { BUDGET_COLUMNS, type BudgetRow } from './budget-row';
import type { BeginStepRequest } from '@holdfast/protocol/steps/step-protocol';
import type { BudgetReservation } from '../budgets/budget-reservations';
import { freeStripeCtes, type StripeTaken } from '../budgets/budget-stripes';

const p = sql.placeholder;

/**
 * What a begin writes once its key is claimed, in one statement (each CTE below was a statement of its own, and
 * every round trip costs the agent's process more CPU than PostgreSQL spends on the write):
 *  - `recorded`: the attempt row, marked running, unless its number was recorded already (a redelivery takes
 *    no identity twice: attempt_identities);
 *  - `reserved`: the task's gate, one guarded UPDATE (see reserveSql);
 *  - `counted`: a first attempt counted in its retry pools' usage (in its connection's stripe). A retry
 *    (charged_retry) takes from the pools instead, after this statement (take-retry.ts locks the pools first);
 *  - `budget_taken`: the estimate reserved on a free stripe of each fleet spend budget covering the step (see
 *    freeStripeCtes; a budget none of whose free stripes has room is left to the spend budget gate). It reads
 *    `reserved` and `counted`, so the task's row and the pool's count are locked before any stripe, as a finish and
 *    a slow begin lock them. A key whose previous attempt left reservations takes none here: the gate gives those
 *    back first, then reserves;
 *  - `attached`: what the finish and a dead letter need, written onto the key (with the budgets' reservations),
 *    returning what the previous attempt left there: its reservation (a holder that died without finishing; this
 *    one replaces it) and its start;
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
    model: p('model'),
  })},
previous as (
  select reserved_micros, attempt_started_at, budget_reservations from idempotency_keys where key = ${p('key')}::text
),
reserved as (
  ${reserveSql()}
),
counted as (
  insert into retry_pool_usage (agent, step, slice_start, stripe, first_attempts)
  select ${p('agent')}::text, ${p('step')}::text, ${p('sliceStart')}::timestamptz, ${counterStripeSql}, 1
  from reserved where not reserved.charged_retry
  on conflict (agent, step, slice_start, stripe) do update set first_attempts = retry_pool_usage.first_attempts + 1
  returning 1
),
budget_wanted as (
  select w.budget_id, w.period_start, w.limit_micros, w.retry_cap_micros
  from jsonb_to_recordset(${p('budgets')}::jsonb)
    as w(budget_id bigint, period_start timestamptz, limit_micros bigint, retry_cap_micros bigint, owner text),
    reserved, (select count(*) from counted) as pool_counted_first
  where (w.owner is null or w.owner = reserved.owner)
    and (select budget_reservations from previous) is null
),
${freeStripeCtes({
  estimate: sql`${p('estimate')}::bigint`,
  retryEstimate: sql`(case when (select charged_retry from reserved) then ${p('estimate')}::bigint else 0 end)`,
  preferredStripe: sql`${p('preferredStripe')}::int`,
})},
attached as (
  update idempotency_keys set
    agent = ${p('agent')}::text, queue = ${p('queue')}::text, begun_by = ${p('begunBy')}::text, payload = ${p('payload')}::jsonb, reserved_micros = ${p('estimate')}::bigint,
    downstream = ${p('downstream')}::text, model = ${p('model')}::text, completes_task = ${p('final')}::boolean,
    attempt_started_at = case when exists (select 1 from recorded) then ${p('now')}::timestamptz end,
    finish_answer = null, budget_reservations = (
      select jsonb_agg(jsonb_build_object('b', budget_id, 'p', period_start, 's', stripe, 'r', reserved.charged_retry))
      from budget_taken, reserved)
  from previous
  where idempotency_keys.key = ${p('key')}::text
  returning previous.reserved_micros as leftover, previous.attempt_started_at as previous_started_at,
    previous.budget_reservations as previous_budget_reservations
)
select attached.previous_started_at, attached.leftover, attached.previous_budget_reservations,
  (select coalesce(jsonb_agg(jsonb_build_object('budgetId', budget_id, 'stripe', stripe)), '[]'::jsonb)
    from budget_taken) as budgets_taken,
  reserved.*
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
    previousStartedAt: sql`previous.attempt_started_at`,
    lastRedriveAt: sql`task.last_redrive_at`,
  });
  const retryCost = sql`(case when ${charges} then 1 else 0 end)`;
  const reservedByOthers = sql`greatest(0, task.reserved_micros - previous.reserved_micros)`;
  const returned = sql.raw(
    BUDGET_COLUMNS.split(', ')
      .map((column) => `task.${column}`)
      .join(', '),
  );
  return sql`update task_budgets task set
    reserved_micros = ${reservedByOthers} + ${p('estimate')}::bigint,
    retries_used = task.retries_used + ${retryCost},
    updated_at = now()
  from previous
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
  budgets_taken: StripeTaken[];
} & ((BudgetRow & { charged_retry: boolean }) | { [column in keyof BudgetRow | 'charged_retry']: null });

export interface BeginWrites {
  /** When the key's previous attempt began (null for a first attempt): the refusal's reading needs it. */
  previousStartedAt: string | null;
  /** What a previous attempt that never finished left reserved under the fleet's budgets: this one gives it back. */
  leftover: { micros: number; reservations: BudgetReservation[] } | undefined;
  /** The fleet spend budgets that took this attempt's estimate on a free stripe (the gate reserves the rest). */
  budgetsTaken: StripeTaken[];
  /** The task's row after the reservation; undefined when its gate refused this attempt. */
  budget: (BudgetRow & { charged_retry: boolean }) | undefined;
}

/** Runs the begin's writes (beginWrites) in the claim's transaction. */
export async function writeBegin(
  tx: Transaction,
  request: BeginStepRequest & { queue: string },
  claimed: { key: string; attemptNumber: number; estimate: number; now: Date },
  by: { begunBy: string | null; source: 'http' | 'library' },
  budgets: { budgets: string; preferredStripe: number },
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
    model: request.model === undefined ? null : budgetModelOf(request.model),
    final: request.final,
    sliceStart: sliceStartOf(claimed.now).toISOString(),
    ...budgets,
  });
  if (!row) throw new Error(`beginStep: key "${claimed.key}" was claimed but is not there`);
  const {
    previous_started_at: previousStartedAt,
    leftover,
    previous_budget_reservations: reservations,
    budgets_taken: budgetsTaken,
    ...budget
  } = row;
  return {
    previousStartedAt,
    budgetsTaken,
    leftover: reservations?.length ? { micros: Number(leftover), reservations } : undefined,
    budget: budget.status === null ? undefined : (budget as BeginWrites['budget']),
  };
}
