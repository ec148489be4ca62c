import type { Executor } from '../../db/client';
import { budgetModelOf } from '@holdfast/protocol/inputs/spend-budget-input';
import type { Attempt } from '../../db/schema';
import { attemptSourceOf, DEFAULT_CORE_POLICY, nowOf, policyOf, type CoreContext } from '../kernel/context';
import { AttemptConflictError, InvalidInputError } from '@holdfast/protocol/errors';
import { costOfReport } from '../pricing/cost-of-report';
import { recordAttemptInput, type RecordAttemptInput } from '@holdfast/protocol/inputs/record-attempt-input';
import { authorizeTaskAgent, readTaskAgent, resolveTaskOf, type TaskAgent } from '../tasks/task-agent';
import { parseInput } from '@holdfast/protocol/validation';
import { runStatement } from '../kernel/run-statement';
import { INSERT_REPORTED_ATTEMPT } from './attempt-writes';
import { countSeenSpend } from '../budgets/seen-spend';

export { recordAttemptInput, type RecordAttemptInput } from '@holdfast/protocol/inputs/record-attempt-input';

/** A clock a little ahead of ours is a skewed worker, not an attempt from the future. */
const MAX_CLOCK_SKEW_MS = 5 * 60_000;

export interface RecordAttemptResult {
  attempt: Attempt;
  /** True when this exact attempt had already been recorded: the report was a redelivery. */
  duplicate: boolean;
}

/**
 * Records one finished attempt of a step. Reporting the same attempt again
 * (same task, step and attempt number, same content) returns the stored row
 * with `duplicate: true`; reporting it with different content is refused with
 * ATTEMPT_CONFLICT. The attempt_identities primary key decides, so
 * concurrent reports of one attempt produce exactly one row, even when they
 * disagree about its start time (and so would land in different partitions).
 */
export async function recordAttempt(
  ctx: CoreContext,
  input: RecordAttemptInput,
  /** The stored agents of a batch's tasks, read once for all of them (readTaskAgents) in the same transaction. */
  storedTasks?: Map<string, TaskAgent>,
): Promise<RecordAttemptResult> {
  const attempt = parseInput(recordAttemptInput, input);
  refuseOutsideRetention(ctx, attempt.startedAt);
  // A task keeps the agent it was first seen with (task-agent.ts); an id another agent's task has is this
  // agent's alias of it (task-alias.ts).
  const { taskId, stored } = await resolveTaskOf(ctx.db, attempt.agent, attempt.taskId, storedTasks);
  const claimed = { taskId, agent: attempt.agent };
  await authorizeTaskAgent(ctx, stored, claimed);
  const cost = await costOfReport(ctx.db, attempt, attempt.startedAt);
  const values: AttemptValues = {
    taskId,
    agent: attempt.agent,
    step: attempt.step,
    // A reported attempt names no loop pass: looped steps are the step protocol's.
    iteration: 0,
    attemptNumber: attempt.attemptNumber,
    startedAt: attempt.startedAt,
    finishedAt: attempt.finishedAt,
    latencyMs: attempt.finishedAt.getTime() - attempt.startedAt.getTime(),
    outcome: attempt.outcome,
    errorClass: attempt.errorClass ?? null,
    errorText: attempt.errorText ?? null,
    costMicros: cost.costMicros,
    costSource: cost.source,
    model: attempt.model === undefined ? null : budgetModelOf(attempt.model),
    idempotencyKey: attempt.idempotencyKey ?? null,
    runKey: attempt.runKey ?? null,
    source: attemptSourceOf(ctx),
  };

  const [inserted] = await insertUnlessReported(ctx.db, values);
  if (inserted) return firstReport(ctx.db, inserted);

  // The identity was taken: by an earlier report of this attempt, the same or not.
  const [earlier] = await findReported(ctx.db, values);
  if (!earlier) {
    // Or the task was stored by a request this one raced: its row committed while this statement waited on it,
    // too late for the statement's snapshot to see. For another agent, judged now (it was judged before)...
    const stored = await readTaskAgent(ctx.db, values.taskId);
    if (stored && stored.agent !== values.agent) await authorizeTaskAgent(ctx, stored, claimed);
    // ...for this agent (another report of the same task at the same instant), written by a statement that sees it.
    if (stored) return recordRacedReport(ctx.db, values);
    // Identities and attempts are written together and only removed together (by retention).
    throw new Error('recordAttempt: the attempt identity is taken but its attempt was not found');
  }
  return answerRepeatedReport(earlier, values);
}

/** A report whose task was stored by a concurrent request of its own agent: written again, now that it can be. */
async function recordRacedReport(db: Executor, values: AttemptValues): Promise<RecordAttemptResult> {
  const [inserted] = await insertUnlessReported(db, values);
  if (inserted) return firstReport(db, inserted);
  const [earlier] = await findReported(db, values);
  if (!earlier) throw new Error('recordAttempt: the attempt identity is taken but its attempt was not found');
  return answerRepeatedReport(earlier, values);
}

/** A report recorded for the first time: its spend counts under the fleet's budgets, which it could not ask. */
async function firstReport(db: Executor, inserted: AttemptRow): Promise<RecordAttemptResult> {
  const attempt = toAttempt(inserted);
  await countSeenSpend(db, {
    taskId: attempt.taskId,
    agent: attempt.agent,
    step: attempt.step,
    startedAt: attempt.startedAt,
    costMicros: attempt.costMicros,
    retryCostMicros: attempt.retryCostMicros,
    model: attempt.model,
  });
  return { attempt, duplicate: false };
}

/** A report of an attempt recorded already: the stored row if it says the same, else ATTEMPT_CONFLICT. */
function answerRepeatedReport(earlier: AttemptRow, values: AttemptValues): RecordAttemptResult {
  const existing = toAttempt(earlier);
  const differences = differingFields(existing, values);
  if (differences.length > 0) {
    throw new AttemptConflictError(
      `Attempt ${values.attemptNumber} of step "${values.step}" in task "${values.taskId}" was already recorded ` +
        `with a different ${differences.join(', ')}; the first report stands`,
    );
  }
  return { attempt: existing, duplicate: true };
}

/**
 * An attempt must start within the raw retention (older ones would be swept
 * at once, and no partition may exist for them) and not in the future beyond
 * a little clock skew (a wrong clock would put it in a partition to come).
 */
function refuseOutsideRetention(ctx: CoreContext, startedAt: Date): void {
  const now = nowOf(ctx).getTime();
  const retentionMs = policyOf(ctx).attemptRetentionMs ?? DEFAULT_CORE_POLICY.attemptRetentionMs!;
  const days = Math.round(retentionMs / 86_400_000);
  let problem: string | undefined;
  if (startedAt.getTime() < now - retentionMs)
    problem = `must be within the last ${days} days (attempts are kept that long); this one started ${startedAt.toISOString()}`;
  else if (startedAt.getTime() > now + MAX_CLOCK_SKEW_MS)
    problem = `must not be more than 5 minutes in the future (check the worker's clock); this one starts ${startedAt.toISOString()}`;
  if (problem) throw new InvalidInputError(`Invalid input: startedAt: ${problem}`, { startedAt: [problem] });
}

/**
 * What a report sets: its cost is the stated one or its tokens priced (costOfReport). Its share of retry spend
 * is the database's to set (the attempts_retry_cost trigger), from the execution's other attempts.
 */
type AttemptValues = Omit<Attempt, 'id' | 'recordedAt' | 'changedXid' | 'retryCostMicros'>;

function insertUnlessReported(db: Executor, values: AttemptValues): Promise<AttemptRow[]> {
  return runStatement<AttemptRow>(db, INSERT_REPORTED_ATTEMPT, [
    values.taskId,
    values.step,
    values.attemptNumber,
    values.startedAt!.toISOString(),
    values.agent,
    values.finishedAt!.toISOString(),
    values.latencyMs,
    values.outcome,
    values.errorClass,
    values.errorText,
    values.costMicros,
    values.idempotencyKey,
    values.runKey,
    values.source,
    values.costSource,
    values.model,
  ]);
}

/** The attempt that holds this identity, found in its own day's partition. */
const FIND_REPORTED = `select attempts.* from attempt_identities identity
    join attempts on attempts.task_id = identity.task_id and attempts.step = identity.step
      and attempts.iteration = identity.iteration and attempts.attempt_number = identity.attempt_number
      and attempts.started_at = identity.started_at
    where identity.task_id = $1 and identity.step = $2 and identity.iteration = 0 and identity.attempt_number = $3::int`;

function findReported(db: Executor, values: AttemptValues): Promise<AttemptRow[]> {
  return runStatement<AttemptRow>(db, FIND_REPORTED, [values.taskId, values.step, values.attemptNumber]);
}

/** An attempts row as PostgreSQL returns it to a raw statement. */
interface AttemptRow {
  [column: string]: unknown;
  id: string;
  task_id: string;
  agent: string;
  step: string;
  iteration: number;
  attempt_number: number;
  started_at: Date;
  finished_at: Date | null;
  latency_ms: number | null;
  outcome: Attempt['outcome'];
  error_class: Attempt['errorClass'];
  error_text: string | null;
  cost_micros: string;
  retry_cost_micros: string;
  cost_source: Attempt['costSource'];
  model: string | null;
  source: Attempt['source'];
  idempotency_key: string | null;
  run_key: string | null;
  recorded_at: Date;
  changed_xid: string;
}

function toAttempt(row: AttemptRow): Attempt {
  return {
    id: Number(row.id),
    taskId: row.task_id,
    agent: row.agent,
    step: row.step,
    iteration: row.iteration,
    attemptNumber: row.attempt_number,
    startedAt: new Date(row.started_at),
    finishedAt: row.finished_at === null ? null : new Date(row.finished_at),
    latencyMs: row.latency_ms,
    outcome: row.outcome,
    errorClass: row.error_class,
    errorText: row.error_text,
    costMicros: Number(row.cost_micros),
    retryCostMicros: Number(row.retry_cost_micros),
    costSource: row.cost_source,
    model: row.model,
    source: row.source,
    idempotencyKey: row.idempotency_key,
    runKey: row.run_key,
    recordedAt: new Date(row.recorded_at),
    changedXid: row.changed_xid,
  };
}

/**
 * What the caller reported differently: how the attempt came (library or HTTP) does not count, nor a priced
 * cost, which follows the price table and admins' overrides at the time of each report, nor the model (attempts
 * reported before it was kept have none).
 */
const NOT_COMPARED = new Set<keyof AttemptValues>(['source', 'costSource', 'model']);

function differingFields(stored: Attempt, reported: AttemptValues): string[] {
  const compared = (Object.keys(reported) as (keyof AttemptValues)[]).filter(
    (field) =>
      !NOT_COMPARED.has(field) &&
      !(field === 'costMicros' && reported.costSource !== 'reported' && stored.costSource !== 'reported'),
  );
  return compared.filter((field) => {
    const storedValue = stored[field];
    const reportedValue = reported[field];
    if (storedValue instanceof Date && reportedValue instanceof Date) {
      return storedValue.getTime() !== reportedValue.getTime();
    }
    return storedValue !== reportedValue;
  });
}
