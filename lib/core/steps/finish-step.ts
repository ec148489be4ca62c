import { sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import type { CostSource, ErrorClass, KeyStatus } from '../../db/schema';
import { nowOf, type Actor, type CoreContext } from '../kernel/context';
import { retryOnDeadlock } from '../kernel/deadlock-retry';
import { ForbiddenError, NotFoundError, StaleTokenError, StateConflictError } from '@holdfast/protocol/errors';
import { failsTheDownstream, recordBreakerOutcome } from '../breakers/breaker-outcomes';
import { breakerTargetsOf } from '../breakers/breaker-targets';
import { openHold } from '../holds/open-hold';
import { expiresAfterRetentionSql } from '../keys/claim-key';
import { decideRetry, DEFAULT_RETRY_POLICY, type RetryPolicy } from '../retry/decide-retry';
import { backoffWith, readStepPolicy } from '../retry/step-policy';
import { costOfReport } from '../pricing/cost-of-report';
import { markTaskFinished } from '../tasks/finish-task';
import { MAX_HOLD_DETAIL } from '@holdfast/protocol/inputs/hold-input';
import { fixedSql } from '../kernel/run-statement';
import { cutToLength, parseInput } from '@holdfast/protocol/validation';
import { allowanceLeft, BUDGET_COLUMNS, type BudgetRow } from './budget-row';
import { exhaustTask } from './exhaust-task';
import { settleSucceeded, type SucceededFinish } from './finish-writes';
import { mayCoordinate, stepActor } from './step-actor';
import {
  finishAnswer,
  finishStepInput,
  type FinishAnswer,
  type FinishStepInput,
  type FinishStepRequest,
} from '@holdfast/protocol/steps/step-protocol';

/** A finish with its cost settled: the stated one, or its tokens priced (lib/core/pricing/cost-of-report.ts). */
type PricedFinish = FinishStepRequest & { costMicros: number; costSource: CostSource };

type BegunKey = {
  key: string;
  status: KeyStatus;
  fencing_token: string;
  acquisitions: number;
  downstream_idempotent: boolean;
  lock_expired: boolean;
  task_id: string;
  step: string;
  agent: string | null;
  queue: string;
  /** The stored agent and queue of the key's task: they, not the key's copy, authorize the finish. */
  task_agent: string;
  task_queue: string;
  begun_by: string | null;
  /** The downstream the attempt's begin named, if any: its breaker counts this finish too. */
  downstream: string | null;
  payload: unknown;
  reserved_micros: string;
  completes_task: boolean;
  attempt_started_at: string | null;
  finish_answer: unknown;
};

/**
 * Finishes a begun attempt, in one transaction under the key's row lock:
 * records its outcome, latency and cost; swaps its reservation for the actual
 * cost; settles the key (completed with its result, or failed); and decides
 * what comes next: `completed` (and the task too, for a final step), `retry`
 * after a delay (capped exponential backoff with full jitter, never sooner
 * than a Retry-After), or `stop` (DO_NOT_RETRY with one dead letter and one
 * hold; UNCERTAIN_OUTCOME when a non-deduplicating step failed after its
 * claim expired). The answer is kept on the key, so a second finish of the
 * same attempt changes nothing and gets the same answer.
 */
export async function finishStep(
  ctx: CoreContext,
  input: FinishStepInput,
  retryPolicy: RetryPolicy = DEFAULT_RETRY_POLICY,
): Promise<FinishAnswer> {
  const parsed = parseInput(finishStepInput, input);
  const now = nowOf(ctx);
  const cost = await costOfReport(ctx.db, parsed, now);
  const request: PricedFinish = { ...parsed, costMicros: cost.costMicros, costSource: cost.source };
  // The usual finish, a success, settles in one statement with no transaction around it (finish-writes.ts). When
  // that statement finds the key otherwise than it expects, it writes nothing, and the transaction below tells
  // the cases apart.
  if (request.outcome === 'succeeded' && mayCoordinate(ctx)) {
    const settled = await retryOnDeadlock(ctx.db, () =>
      settleSucceeded(ctx.db, ctx.actor, succeededFinish(request, now, { completesTask: false, taskCompleted: false })),
    );
    if (settled) return settled;
  }
  const settled = await retryOnDeadlock(ctx.db, () =>
    ctx.db.transaction(async (tx): Promise<FinishAnswer | { supersededBy: string }> => {
      const key = await lockBegunKey(tx, request);
      // Before anything is written, superseded or not: the task's stored agent and queue bound a token.
      const actor = stepActor(ctx, key.task_agent, key.task_queue);
      if (request.fencingToken < Number(key.fencing_token)) {
        // The attempt ran and may have cost money: its end is recorded, but it decides nothing.
        await recordSupersededEnd(tx, key, request, now);
        return { supersededBy: key.fencing_token };
      }
      refuseOtherToken(ctx, key);
      if (key.finish_answer !== null) return finishAnswer.parse(key.finish_answer);
      if (key.status !== 'in_progress') {
        throw new StateConflictError(
          `Key "${key.key}" is already ${key.status}: it was settled outside this attempt (by a person or a raw key call)`,
        );
      }
      if (request.outcome === 'succeeded') return finishSucceeded(tx, ctx, key, request, now);
      await recordBreakerOutcome(
        tx,
        breakerTargetsOf({ agent: key.task_agent, step: key.step, downstream: key.downstream }),
        failsTheDownstream(request.outcome, request.errorClass),
        now,
      );
      await recordAttemptEnd(tx, key, request, now);
      const budget = await settleReservation(tx, key, request.costMicros);

      let answer: FinishAnswer;
      if (!key.downstream_idempotent && key.lock_expired) {
        // Past its claim, a step whose downstream cannot deduplicate may have acted
        // twice already or not at all: its key stays uncertain, for a person.
        const { hold } = await openHold(
          { db: tx, actor },
          {
            itemType: 'key',
            itemId: key.key,
            reason: 'uncertain_outcome',
            owner: budget.owner,
            detail: cutToLength(
              `Step ${key.step} failed after its claim expired (${request.errorText}); its downstream cannot deduplicate, so check whether the side effect happened before resuming`,
              MAX_HOLD_DETAIL,
            ),
          },
        );
        answer = {
          decision: 'stop',
          code: 'UNCERTAIN_OUTCOME',
          reason: 'uncertain_outcome',
          detail: `Key ${key.key} failed after its claim expired: its outcome is uncertain`,
          holdId: hold.id,
        };
        await tx.execute(
          sql`update idempotency_keys set reserved_micros = 0, finish_answer = ${JSON.stringify(answer)}::jsonb where key = ${key.key}::text`,
        );
      } else {
        const failure = { errorClass: request.errorClass!, errorText: request.errorText!.trim() };
        await settleFailedKey(tx, key, failure);
        answer = await decideAfterFailure(tx, actor, key, budget, request, failure, now, retryPolicy);
        await tx.execute(
          sql`update idempotency_keys set finish_answer = ${JSON.stringify(answer)}::jsonb where key = ${key.key}::text`,
        );
      }
      return answer;
    }),
  );
  if ('supersededBy' in settled) {
    throw new StaleTokenError(
      `Key "${request.key}" was taken over (token ${settled.supersededBy} is current, not ${request.fencingToken}); this attempt must stop`,
    );
  }
  return settled;
}

/** A succeeded attempt's finish under the key's lock: a final step's task is marked completed first, as its answer says whether it was. */
async function finishSucceeded(
  tx: Transaction,
  ctx: CoreContext,
  key: BegunKey,
  request: PricedFinish,
  now: Date,
): Promise<FinishAnswer> {
  const taskCompleted = key.completes_task && (await markTaskFinished(tx, key.task_id, 'completed'));
  const answer = await settleSucceeded(
    tx,
    ctx.actor,
    succeededFinish(request, now, { completesTask: key.completes_task, taskCompleted }),
  );
  if (!answer) throw new Error(`finishStep: key "${key.key}" changed under its row lock`);
  return answer;
}

function succeededFinish(
  request: PricedFinish,
  now: Date,
  task: { completesTask: boolean; taskCompleted: boolean },
): SucceededFinish {
  return {
    key: request.key,
    fencingToken: request.fencingToken,
    costMicros: request.costMicros,
    costSource: request.costSource,
    result: request.result,
    completesTask: task.completesTask,
    taskStatus: task.taskCompleted ? 'completed' : 'active',
    now,
  };
}

/** The key and its task's stored names, the key's row locked for the rest of the finish's transaction. */
const lockedKeyStatement = fixedSql<BegunKey>(
  () => sql`
    select k.key, k.status, k.fencing_token, k.acquisitions, k.downstream_idempotent, coalesce(k.locked_until <= now(), true) as lock_expired,
      k.task_id, k.step, k.agent, k.queue, k.payload, k.reserved_micros, k.completes_task, k.attempt_started_at, k.finish_answer,
      k.begun_by, k.downstream, t.agent as task_agent, t.queue as task_queue
    from idempotency_keys k join task_budgets t on t.task_id = k.task_id
    where k.key = ${sql.placeholder('key')}::text for update of k`,
);

/** The key under its row lock, checked to be this attempt's: never begun is NOT_FOUND, superseded is STALE_TOKEN. */
async function lockBegunKey(tx: Transaction, request: PricedFinish): Promise<BegunKey> {
  const [key] = await lockedKeyStatement(tx, { key: request.key });
  if (!key || key.agent === null || request.fencingToken > Number(key.fencing_token)) {
    throw new NotFoundError(
      `No step attempt was begun under key "${request.key}" with fencing token ${request.fencingToken}`,
    );
  }
  return key;
}

/**
 * A fencing token is a small number anyone may guess: the current attempt is
 * finished only by the API token that began it (in-process workers carry
 * none, and are trusted with their own keys).
 */
function refuseOtherToken(ctx: CoreContext, key: BegunKey): void {
  if (!ctx.actor || key.begun_by === null || ctx.actor.id === key.begun_by) return;
  throw new ForbiddenError(
    `${ctx.actor.type}:${ctx.actor.id} may not finish the attempt under key "${key.key}": another API token began it`,
  );
}

/** A superseded attempt's end and cost, recorded once (while its row is still running); its reservation went back at the takeover. */
async function recordSupersededEnd(tx: Transaction, key: BegunKey, request: PricedFinish, now: Date): Promise<void> {
  if (request.attemptNumber === undefined || request.attemptNumber >= key.acquisitions) return;
  const [attempt] = await tx.execute<{ started_at: string }>(sql`
    select started_at from attempts
    where task_id = ${key.task_id}::text and step = ${key.step}::text and attempt_number = ${request.attemptNumber}::int
      and idempotency_key = ${key.key}::text and outcome = 'running'`);
  if (!attempt) return;
  await recordAttemptEnd(
    tx,
    { ...key, acquisitions: request.attemptNumber, attempt_started_at: attempt.started_at },
    request,
    now,
  );
  await tx.execute(
    sql`update task_budgets set spend_micros = spend_micros + ${request.costMicros}::bigint where task_id = ${key.task_id}::text`,
  );
}

async function recordAttemptEnd(tx: Transaction, key: BegunKey, request: PricedFinish, now: Date): Promise<void> {
  if (key.attempt_started_at === null) return;
  const finishedAt = now.toISOString();
  const failed = request.outcome === 'failed';
  await tx.execute(sql`
    update attempts set
      outcome = ${request.outcome}::text,
      finished_at = greatest(${finishedAt}::timestamptz, started_at),
      latency_ms = greatest(0, round(extract(epoch from (${finishedAt}::timestamptz - started_at)) * 1000))::int,
      cost_micros = ${request.costMicros}::bigint,
      cost_source = ${request.costSource}::text,
      error_class = ${failed ? request.errorClass! : null}::error_class,
      error_text = ${failed ? request.errorText!.trim() : null}::text
    where task_id = ${key.task_id}::text and step = ${key.step}::text and attempt_number = ${key.acquisitions}::int
      and idempotency_key = ${key.key}::text and started_at = ${key.attempt_started_at}::timestamptz and outcome = 'running'`);
}

/** Gives back what the attempt reserved and adds what it really cost. */
async function settleReservation(tx: Transaction, key: BegunKey, costMicros: number): Promise<BudgetRow> {
  const [budget] = await tx.execute<BudgetRow>(sql`
    update task_budgets set
      reserved_micros = greatest(0, reserved_micros - ${key.reserved_micros}::bigint),
      spend_micros = spend_micros + ${costMicros}::bigint
    where task_id = ${key.task_id}::text
    returning ${sql.raw(BUDGET_COLUMNS)}`);
  if (!budget) throw new Error(`finishStep: task "${key.task_id}" has no budget`);
  return budget;
}

/** Settles the key as failed; its retention now counts from this change. A succeeded one: settleSucceeded. */
async function settleFailedKey(
  tx: Transaction,
  key: BegunKey,
  failure: { errorClass: ErrorClass; errorText: string },
): Promise<void> {
  await tx.execute(sql`
    update idempotency_keys set
      status = 'failed', result = null,
      error_class = ${failure.errorClass}::error_class, error_text = ${failure.errorText}::text,
      locked_until = null, reserved_micros = 0, updated_at = now(),
      expires_at = ${expiresAfterRetentionSql()},
      finish_answer = null
    where key = ${key.key}::text`);
}

/**
 * This step's attempts since its task was last redriven (all of them for a task
 * never redriven): of its key, and its invalid-output ones before this attempt.
 * A redrive is a reset: the step's policy, its one corrective retry and its
 * backoff count afresh from it, as the task's allowance does.
 */
async function attemptsSinceRedrive(
  tx: Transaction,
  key: BegunKey,
  attemptNumber: number,
): Promise<{ ofKey: number; invalidOutputs: number }> {
  const [row] = await tx.execute<{ of_key: number; invalid_outputs: number }>(sql`
    select count(*) filter (where a.idempotency_key = ${key.key}::text)::int as of_key,
      count(*) filter (where a.error_class = 'invalid_output' and a.attempt_number < ${attemptNumber}::int)::int as invalid_outputs
    from attempts a
    where a.task_id = ${key.task_id}::text and a.step = ${key.step}::text
      and a.started_at > coalesce((select last_redrive_at from task_budgets where task_id = ${key.task_id}::text), '-infinity')`);
  return { ofKey: row?.of_key ?? 0, invalidOutputs: row?.invalid_outputs ?? 0 };
}

/** After a failure: retry (when the error class allows and the task can pay) or stop with a dead letter. */
async function decideAfterFailure(
  tx: Transaction,
  actor: Actor,
  key: BegunKey,
  budget: BudgetRow,
  request: PricedFinish,
  failure: { errorClass: ErrorClass; errorText: string },
  now: Date,
  retryPolicy: RetryPolicy,
): Promise<FinishAnswer> {
  const attemptNumber = key.acquisitions;
  // An admin's override of this step's policy, read at this finish: a change applies to running tasks at once.
  const override = await readStepPolicy(tx, { agent: key.task_agent, step: key.step });
  const sinceRedrive = await attemptsSinceRedrive(tx, key, attemptNumber);
  const decision = decideRetry(
    {
      errorClass: failure.errorClass,
      // The backoff grows from the task's last redrive, not from its first attempt ever.
      attemptNumber: Math.max(1, Math.min(attemptNumber, sinceRedrive.ofKey)),
      invalidOutputRetries: sinceRedrive.invalidOutputs,
      retryAfterMs: request.retryAfterMs,
    },
    backoffWith(retryPolicy, override),
  );
  const step = {
    taskId: key.task_id,
    agent: key.agent!,
    step: key.step,
    queue: key.queue,
    payload: key.payload,
    owner: budget.owner,
    attemptNumber,
  };
  if (!decision.retry) {
    const reason = decision.reason === 'corrective_retry_used' ? 'corrective_retry_used' : 'permanent_error';
    const why =
      reason === 'corrective_retry_used'
        ? 'invalid output again after its one corrective retry'
        : `a ${failure.errorClass} error is never retried`;
    return exhaustTask(tx, actor, step, reason, failure, why);
  }
  if (override?.retriedClasses && !override.retriedClasses.includes(failure.errorClass)) {
    const why = `a ${failure.errorClass} error is not retried by this step's policy (set by ${override.updatedBy})`;
    return exhaustTask(tx, actor, step, 'permanent_error', failure, why);
  }
  if (override?.maxAttempts && attemptNumber >= override.maxAttempts) {
    // Counted since the task's last redrive: a redrive grants a fresh allowance, and the policy's count starts over too.
    const counted = sinceRedrive.ofKey;
    if (counted >= override.maxAttempts) {
      const why = `this step's policy allows ${override.maxAttempts} attempt(s) (set by ${override.updatedBy}); this was attempt ${counted}${counted === attemptNumber ? '' : ' since the task was redriven'}`;
      return exhaustTask(tx, actor, step, 'retry_ceiling', failure, why);
    }
  }
  if (budget.retries_used >= budget.retry_allowance) {
    return exhaustTask(
      tx,
      actor,
      step,
      'retry_ceiling',
      failure,
      `no retry left: ${budget.retries_used} of ${budget.retry_allowance} used`,
    );
  }
  if (new Date(budget.deadline) <= now) {
    return exhaustTask(
      tx,
      actor,
      step,
      'deadline_passed',
      failure,
      `the task's deadline ${new Date(budget.deadline).toISOString()} has passed`,
    );
  }
  if (Number(budget.spend_micros) >= Number(budget.spend_ceiling_micros)) {
    return exhaustTask(
      tx,
      actor,
      step,
      'budget_exhausted',
      failure,
      `the task spent ${budget.spend_micros} of its ${budget.spend_ceiling_micros} micro-dollars`,
    );
  }
  return {
    decision: 'retry',
    key: key.key,
    attemptNumber,
    errorClass: failure.errorClass,
    delayMs: decision.delayMs,
    ...allowanceLeft(budget, now),
  };
}
