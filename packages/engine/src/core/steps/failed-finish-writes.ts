import { sql } from 'drizzle-orm';
import { budgetModelOf } from '@holdfast/protocol/inputs/spend-budget-input';
import type { Transaction } from '../../db/client';
import type { ErrorClass } from '../../db/schema';
import { endRunningAttemptSql } from '../attempts/attempt-writes';
import { expiresAfterRetentionSql } from '../keys/claim-key';
import type { BegunKey, PricedFinish } from './begun-key';
import { BUDGET_COLUMNS, type BudgetRow } from './budget-row';
import { settleBudgetsCte } from '../budgets/budget-reservations';

/** A superseded attempt's end and cost, recorded once (while its row is still running); its reservation went back at the takeover. */
export async function recordSupersededEnd(
  tx: Transaction,
  key: BegunKey,
  request: PricedFinish,
  now: Date,
): Promise<void> {
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

/**
 * The attempt's row, running since its begin, ended with its outcome, latency, cost, error and model; answers its
 * share of retry spend (undefined when no row was running).
 */
export async function recordAttemptEnd(
  tx: Transaction,
  key: BegunKey,
  request: PricedFinish,
  now: Date,
): Promise<number | undefined> {
  if (key.attempt_started_at === null) return undefined;
  const finishedAt = now.toISOString();
  const failed = request.outcome === 'failed';
  const [ended] = await tx.execute<{ retry_cost_micros: string }>(sql`
    ${endRunningAttemptSql({
      alias: 'a',
      outcome: sql`${request.outcome}`,
      finishedAt: sql`${finishedAt}`,
      costMicros: sql`${request.costMicros}`,
      costSource: sql`${request.costSource}`,
      errorClass: sql`${failed ? request.errorClass! : null}`,
      errorText: sql`${failed ? request.errorText!.trim() : null}`,
      model: sql`${request.model === undefined ? null : budgetModelOf(request.model)}`,
      from: sql``,
      attempt: {
        taskId: sql`${key.task_id}::text`,
        step: sql`${key.step}::text`,
        attemptNumber: sql`${key.acquisitions}::int`,
        key: sql`${key.key}::text`,
        startedAt: sql`${key.attempt_started_at}::timestamptz`,
      },
    })}
    returning a.retry_cost_micros`);
  return ended ? Number(ended.retry_cost_micros) : undefined;
}

/** Gives back what the attempt reserved and adds what it really cost, on its task and under its budgets. */
export async function settleReservation(tx: Transaction, key: BegunKey, costMicros: number): Promise<BudgetRow> {
  const [budget] = await tx.execute<BudgetRow>(sql`
    update task_budgets set
      reserved_micros = greatest(0, reserved_micros - ${key.reserved_micros}::bigint),
      spend_micros = spend_micros + ${costMicros}::bigint
    where task_id = ${key.task_id}::text
    returning ${sql.raw(BUDGET_COLUMNS)}`);
  if (!budget) throw new Error(`finishStep: task "${key.task_id}" has no budget`);
  if (key.budget_reservations?.length) {
    await tx.execute(sql`
      with begun as (
        select ${key.reserved_micros}::bigint as reserved_micros,
          ${JSON.stringify(key.budget_reservations)}::jsonb as budget_reservations
      ),
      ${settleBudgetsCte(sql`${costMicros}::bigint`)}
      select 1`);
  }
  return budget;
}

/** Settles the key as failed; its retention now counts from this change. A succeeded one: settleSucceeded. */
export async function settleFailedKey(
  tx: Transaction,
  key: BegunKey,
  failure: { errorClass: ErrorClass; errorText: string },
): Promise<void> {
  await tx.execute(sql`
    update idempotency_keys set
      status = 'failed', result = null,
      error_class = ${failure.errorClass}::error_class, error_text = ${failure.errorText}::text,
      locked_until = null, reserved_micros = 0, budget_reservations = null, updated_at = now(),
      expires_at = ${expiresAfterRetentionSql()},
      finish_answer = null
    where key = ${key.key}::text`);
}

/** Keeps the finish's answer on the key, so a second finish of the same attempt gets it again. */
export async function keepFinishAnswer(tx: Transaction, key: string, answer: unknown, releaseReservation: boolean) {
  await tx.execute(
    releaseReservation
      ? sql`update idempotency_keys set reserved_micros = 0, budget_reservations = null, finish_answer = ${JSON.stringify(answer)}::jsonb where key = ${key}::text`
      : sql`update idempotency_keys set finish_answer = ${JSON.stringify(answer)}::jsonb where key = ${key}::text`,
  );
}
