import { sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import type { ErrorClass } from '../../db/schema';
import type { FinishAnswer } from '@holdfast/protocol/steps/step-protocol';
import type { Actor } from '../kernel/context';
import { decideRetry, type RetryPolicy } from '../retry/decide-retry';
import { backoffWith, readStepPolicy } from '../retry/step-policy';
import type { BegunKey, PricedFinish } from './begun-key';
import { allowanceLeft, type BudgetRow } from './budget-row';
import { exhaustTask, type ExhaustionReason } from './exhaust-task';

type Failure = { errorClass: ErrorClass; errorText: string };

/** What a failed attempt's stop rules read: the retry rule's decision, the step's live policy, the task's row. */
interface FailureFacts {
  failure: Failure;
  decision: ReturnType<typeof decideRetry>;
  override: Awaited<ReturnType<typeof readStepPolicy>>;
  attemptNumber: number;
  /** This step's attempts under its key since the task's last redrive. */
  sinceRedrive: number;
  budget: BudgetRow;
  now: Date;
}

/** A rule that ends the task after a failure, with why; undefined lets the next rule speak. */
type StopRule = (facts: FailureFacts) => { reason: ExhaustionReason; why: string } | undefined;

/** After a failure, in order; the first that speaks dead-letters the task. None speaking is a retry. */
const stopRules: readonly StopRule[] = [
  ({ decision, failure }) => {
    if (decision.retry) return undefined;
    return decision.reason === 'corrective_retry_used'
      ? { reason: 'corrective_retry_used', why: 'invalid output again after its one corrective retry' }
      : { reason: 'permanent_error', why: `a ${failure.errorClass} error is never retried` };
  },
  ({ override, failure }) =>
    override?.retriedClasses && !override.retriedClasses.includes(failure.errorClass)
      ? {
          reason: 'permanent_error',
          why: `a ${failure.errorClass} error is not retried by this step's policy (set by ${override.updatedBy})`,
        }
      : undefined,
  // Counted since the task's last redrive: a redrive grants a fresh allowance, and the policy's count starts over too.
  ({ override, attemptNumber, sinceRedrive }) =>
    override?.maxAttempts && attemptNumber >= override.maxAttempts && sinceRedrive >= override.maxAttempts
      ? {
          reason: 'retry_ceiling',
          why: `this step's policy allows ${override.maxAttempts} attempt(s) (set by ${override.updatedBy}); this was attempt ${sinceRedrive}${sinceRedrive === attemptNumber ? '' : ' since the task was redriven'}`,
        }
      : undefined,
  ({ budget }) =>
    budget.retries_used >= budget.retry_allowance
      ? { reason: 'retry_ceiling', why: `no retry left: ${budget.retries_used} of ${budget.retry_allowance} used` }
      : undefined,
  ({ budget, now }) =>
    new Date(budget.deadline) <= now
      ? { reason: 'deadline_passed', why: `the task's deadline ${new Date(budget.deadline).toISOString()} has passed` }
      : undefined,
  ({ budget }) =>
    Number(budget.spend_micros) >= Number(budget.spend_ceiling_micros)
      ? {
          reason: 'budget_exhausted',
          why: `the task spent ${budget.spend_micros} of its ${budget.spend_ceiling_micros} micro-dollars`,
        }
      : undefined,
];

/** After a failure: retry (when the error class allows and the task can pay) or stop with a dead letter. */
export async function decideAfterFailure(
  tx: Transaction,
  actor: Actor,
  key: BegunKey,
  budget: BudgetRow,
  request: PricedFinish,
  failure: Failure,
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
  const facts = { failure, decision, override, attemptNumber, sinceRedrive: sinceRedrive.ofKey, budget, now };
  for (const rule of stopRules) {
    const stop = rule(facts);
    if (!stop) continue;
    const { task_id: taskId, agent, step, queue, payload } = key;
    const exhausted = { taskId, agent: agent!, step, queue, payload, owner: budget.owner, attemptNumber };
    return exhaustTask(tx, actor, exhausted, stop.reason, failure, stop.why);
  }
  return {
    decision: 'retry',
    key: key.key,
    attemptNumber,
    errorClass: failure.errorClass,
    // The first stop rule takes every failure the retry rule refuses: here it allows one.
    delayMs: decision.retry ? decision.delayMs : 0,
    ...allowanceLeft(budget, now),
  };
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
