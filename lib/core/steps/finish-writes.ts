import { sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import type { CostSource } from '../../db/schema';
import { expiresAfterRetentionSql } from '../keys/claim-key';
import { fixedSql } from '../kernel/run-statement';
import type { FinishAnswer } from './step-protocol';

const p = sql.placeholder;

/**
 * What a succeeded finish writes, in one statement under the key's row lock (each part was a statement of its
 * own):
 *  - `ended`: the running attempt's outcome, latency and cost (a wall clock that stepped back never finishes it
 *    before it started); nothing when the attempt was never recorded (a redelivery of a recorded number);
 *  - `budget`: the task's reservation given back and the real cost added to its spend;
 *  - the key completed with its result and the answer a second finish gets; its retention counts from now.
 * Returns how many task rows it settled, so a task with no row is an error, not a silent no-op.
 */
const settleSucceededStatement = fixedSql<{ budgets: number }>(
  () => sql`
with ended as (
  update attempts set
    outcome = 'succeeded',
    finished_at = greatest(${p('finishedAt')}::timestamptz, started_at),
    latency_ms = greatest(0, round(extract(epoch from (${p('finishedAt')}::timestamptz - started_at)) * 1000))::int,
    cost_micros = ${p('costMicros')}::bigint,
    cost_source = ${p('costSource')}::text,
    error_class = null,
    error_text = null
  where task_id = ${p('taskId')}::text and step = ${p('step')}::text and attempt_number = ${p('attemptNumber')}::int
    and idempotency_key = ${p('key')}::text and started_at = ${p('startedAt')}::timestamptz and outcome = 'running'
  returning 1
),
budget as (
  update task_budgets set
    reserved_micros = greatest(0, reserved_micros - ${p('reservedMicros')}::bigint),
    spend_micros = spend_micros + ${p('costMicros')}::bigint
  where task_id = ${p('taskId')}::text
  returning 1
)
update idempotency_keys set
  status = 'completed', result = ${p('result')}::jsonb, error_class = null, error_text = null,
  locked_until = null, reserved_micros = 0, updated_at = now(),
  expires_at = ${expiresAfterRetentionSql()},
  finish_answer = ${p('answer')}::jsonb
where key = ${p('key')}::text
returning (select count(*) from budget)::int as budgets`,
);

export interface SucceededFinish {
  key: string;
  taskId: string;
  step: string;
  attemptNumber: number;
  /** When the attempt began, as the key holds it; null when no attempt row was recorded for it. */
  attemptStartedAt: string | null;
  /** What the begin reserved, given back now. */
  reservedMicros: string;
  costMicros: number;
  costSource: CostSource;
  result: unknown;
  answer: FinishAnswer;
  now: Date;
}

/** Settles a succeeded attempt (settleSucceededStatement) in the finish's transaction. */
export async function settleSucceeded(tx: Transaction, finish: SucceededFinish): Promise<void> {
  const [row] = await settleSucceededStatement(tx, {
    key: finish.key,
    taskId: finish.taskId,
    step: finish.step,
    attemptNumber: finish.attemptNumber,
    startedAt: finish.attemptStartedAt,
    finishedAt: finish.now.toISOString(),
    reservedMicros: finish.reservedMicros,
    costMicros: finish.costMicros,
    costSource: finish.costSource,
    result: JSON.stringify(finish.result ?? null),
    answer: JSON.stringify(finish.answer),
  });
  if (!row || row.budgets === 0) throw new Error(`finishStep: task "${finish.taskId}" has no budget`);
}
