import type { Transaction } from '../../db/client';
import { nowOf, type CoreContext } from '../kernel/context';
import { retryOnDeadlock } from '../kernel/deadlock-retry';
import { StaleTokenError, StateConflictError } from '@holdfast/protocol/errors';
import { failsTheDownstream, recordBreakerOutcome } from '../breakers/breaker-outcomes';
import { breakerTargetsOf } from '../breakers/breaker-targets';
import { openHold } from '../holds/open-hold';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../retry/decide-retry';
import { costOfReport } from '../pricing/cost-of-report';
import { countModelNamedAtFinish } from '../budgets/seen-spend';
import { markTaskFinished } from '../tasks/finish-task';
import { MAX_HOLD_DETAIL } from '@holdfast/protocol/inputs/hold-input';
import { cutToLength, parseInput } from '@holdfast/protocol/validation';
import { decideAfterFailure } from './after-failure';
import { lockBegunKey, refuseOtherToken, type BegunKey, type PricedFinish } from './begun-key';
import {
  keepFinishAnswer,
  recordAttemptEnd,
  recordSupersededEnd,
  settleFailedKey,
  settleReservation,
} from './failed-finish-writes';
import { settleSucceeded, type SucceededFinish } from './finish-writes';
import { mayCoordinate, stepActor } from './step-actor';
import {
  finishAnswer,
  finishStepInput,
  type FinishAnswer,
  type FinishStepInput,
} from '@holdfast/protocol/steps/step-protocol';

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
      const retryCostMicros = await recordAttemptEnd(tx, key, request, now);
      const budget = await settleReservation(tx, key, request.costMicros);
      // After the task's row and the reservations' stripes, in the order every finish and begin locks them.
      if (retryCostMicros !== undefined) {
        await countModelNamedAtFinish(tx, {
          taskId: key.task_id,
          agent: key.task_agent,
          step: key.step,
          startedAt: new Date(key.attempt_started_at!),
          costMicros: request.costMicros,
          retryCostMicros,
          declaredModel: key.model,
          finishModel: request.model,
        });
      }

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
        await keepFinishAnswer(tx, key.key, answer, true);
      } else {
        const failure = { errorClass: request.errorClass!, errorText: request.errorText!.trim() };
        await settleFailedKey(tx, key, failure);
        answer = await decideAfterFailure(tx, actor, key, budget, request, failure, now, retryPolicy);
        await keepFinishAnswer(tx, key.key, answer, false);
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
    model: request.model,
    result: request.result,
    completesTask: task.completesTask,
    taskStatus: task.taskCompleted ? 'completed' : 'active',
    now,
  };
}
