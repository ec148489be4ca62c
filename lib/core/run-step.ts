import { and, eq, lt, sql } from 'drizzle-orm';
import { z } from 'zod';
import { attempts, deadLetters, taskBudgets, type DeadLetterReason } from '../db/schema';
import { beginAttempt, finishAttempt } from './budgets/attempt-lifecycle';
import { consumeRetry, ensureTaskBudget, taskBudgetInput } from './budgets/task-budget';
import type { Actor, CoreContext } from './context';
import { deadLetterTask, MAX_PAYLOAD_BYTES } from './dead-letters/dead-letter-task';
import { KeyPayloadMismatchError } from './errors';
import { openHold } from './holds/open-hold';
import { claimKey } from './keys/claim-key';
import { deriveKey, hashContent } from './keys/derive-key';
import { completeKey, failKey } from './keys/settle-key';
import { decideRetry, DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry/decide-retry';
import { classifyFailure, type ClassifiedFailure } from './retry/step-error';
import { parseInput } from './validation';

const runStepInput = z.strictObject({
  ...taskBudgetInput.shape,
  step: z.string().trim().min(1).max(100),
  /** For steps repeated in a loop: each iteration is its own operation with its own key. */
  iteration: z.number().int().min(0).optional(),
  /** The step's input. Its hash guards the key; it is kept with a dead letter for redrive. */
  content: z
    .unknown()
    .refine((value) => JSON.stringify(value ?? null).length <= MAX_PAYLOAD_BYTES, `must serialise to at most ${MAX_PAYLOAD_BYTES / 1024} KiB`),
  queue: z.string().trim().min(1).max(100).optional(),
  runKey: z.string().trim().min(1).max(200).optional(),
  /** False for downstreams that cannot deduplicate: an interrupted attempt is then held as uncertain, never repeated. */
  downstreamIdempotent: z.boolean().default(true),
  inProgressTtlMs: z.number().int().min(10).max(24 * 3_600_000).default(60_000),
});
export type RunStepInput = z.input<typeof runStepInput>;

export interface StepAttempt {
  key: string;
  attemptNumber: number;
  fencingToken: number;
}

/** What the step does. Its result is stored and replayed to every duplicate, so a model is never called twice for one step. */
export type StepBody<T> = (attempt: StepAttempt) => Promise<{ result: T; costMicros?: number }>;

export type RunStepOutcome<T> =
  | { status: 'completed'; result: T; attemptNumber: number }
  | { status: 'replayed'; result: T }
  | { status: 'in_progress'; retryAfterMs: number }
  | { status: 'retry'; delayMs: number; attemptNumber: number; errorClass: ClassifiedFailure['errorClass'] }
  | { status: 'held'; code: 'UNCERTAIN_OUTCOME'; holdId: number }
  | { status: 'do_not_retry'; code: 'DO_NOT_RETRY' | 'KEY_PAYLOAD_MISMATCH'; reason: string; holdId?: number; deadLetterId?: number };

/**
 * One step of a task, made safe to deliver more than once: derive and claim
 * the key; replay a completed result; record the attempt (consuming a retry
 * from the task's shared allowance first, in the same transaction); run the
 * body; complete or fail the key; decide whether a failure may be retried;
 * dead-letter with exactly one hold when it may not.
 */
export async function runStep<T>(
  ctx: CoreContext,
  input: RunStepInput,
  body: StepBody<T>,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
): Promise<RunStepOutcome<T>> {
  const step = parseInput(runStepInput, input);
  // A worker calling the library in-process reports as its agent, with the ingest scope.
  const actor: Actor = ctx.actor ?? { type: 'agent', id: step.agent, scopes: ['ingest'] };
  const key = deriveKey({ taskId: step.taskId, step: step.step, iteration: step.iteration });
  const budget = await ensureTaskBudget(ctx.db, {
    taskId: step.taskId,
    agent: step.agent,
    owner: step.owner,
    retryAllowance: step.retryAllowance,
    spendCeilingMicros: step.spendCeilingMicros,
    timeAllowanceMs: step.timeAllowanceMs,
  });
  const owner = budget.owner;

  let claim;
  try {
    claim = await claimKey(ctx, {
      key,
      requestHash: hashContent(step.content ?? null),
      holder: step.runKey,
      inProgressTtlMs: step.inProgressTtlMs,
      downstreamIdempotent: step.downstreamIdempotent,
      taskId: step.taskId,
      step: step.step,
    });
  } catch (error) {
    if (!(error instanceof KeyPayloadMismatchError)) throw error;
    const { hold } = await openHold({ db: ctx.db, actor }, {
      itemType: 'task', itemId: step.taskId, reason: 'payload_mismatch', owner,
      detail: `Step ${step.step} was delivered again with different content under key ${key}`,
    });
    return { status: 'do_not_retry', code: 'KEY_PAYLOAD_MISMATCH', reason: error.message, holdId: hold.id };
  }

  switch (claim.outcome) {
    case 'replay':
      return { status: 'replayed', result: claim.result as T };
    case 'in_progress':
      return { status: 'in_progress', retryAfterMs: claim.retryAfterMs };
    case 'uncertain': {
      const { hold } = await openHold({ db: ctx.db, actor }, {
        itemType: 'key', itemId: key, reason: 'uncertain_outcome', owner,
        detail: `Step ${step.step} started at ${claim.intentAt.toISOString()} and never reported back; its downstream cannot deduplicate, so check whether the side effect happened before resuming`,
      });
      return { status: 'held', code: 'UNCERTAIN_OUTCOME', holdId: hold.id };
    }
    case 'acquired':
      break;
  }

  const attempt: StepAttempt = { key, attemptNumber: claim.attemptNumber, fencingToken: claim.fencingToken };
  if (budget.status !== 'active') {
    // A dead-lettered or discarded task starts no new work until a person redrives it.
    const text = `task is ${budget.status.replace('_', ' ')}`;
    await failKey(ctx, { key, fencingToken: attempt.fencingToken, errorClass: 'permanent', errorText: text });
    return { status: 'do_not_retry', code: 'DO_NOT_RETRY', reason: text };
  }
  const deadLetter = (reason: DeadLetterReason, failure: Pick<ClassifiedFailure, 'errorClass' | 'errorText'>) =>
    exhaust(ctx, actor, step, attempt, owner, reason, failure);

  // The retry is paid for before it runs, in the transaction that records it.
  const started = await ctx.db.transaction(async (tx) => {
    if (attempt.attemptNumber > 1) {
      const grant = await consumeRetry(tx, step.taskId);
      if (!grant.granted) return grant;
    }
    const attemptRow = await beginAttempt(tx, {
      taskId: step.taskId, agent: step.agent, step: step.step, attemptNumber: attempt.attemptNumber,
      idempotencyKey: key, runKey: step.runKey, startedAt: new Date(),
    });
    return { granted: true as const, attemptRow };
  });
  if (!started.granted) {
    const reason = started.reason === 'budget_exhausted' ? 'budget_exhausted' : 'retry_ceiling';
    const failure = { errorClass: 'unknown' as const, errorText: `no retry left: ${started.reason.replace('_', ' ')}` };
    await failKey(ctx, { key, fencingToken: attempt.fencingToken, ...failure });
    return deadLetter(reason, failure);
  }

  let output: { result: T; costMicros?: number };
  try {
    output = await body(attempt);
    if (!isValidCost(output.costMicros)) {
      // A step reporting a nonsense cost is a bug in the step: a person should look.
      throw new Error(`the step reported an invalid cost ${String(output.costMicros)}: costs are whole micro-dollars, 0 or more`);
    }
  } catch (error) {
    const failure = classifyFailure(error);
    if (started.attemptRow !== undefined) {
      await finishAttempt(ctx.db, started.attemptRow, { outcome: 'failed', finishedAt: new Date(), ...failure });
    }
    await failKey(ctx, { key, fencingToken: attempt.fencingToken, errorClass: failure.errorClass, errorText: failure.errorText });
    const decision = decideRetry(
      { ...failure, attemptNumber: attempt.attemptNumber, invalidOutputRetries: await invalidOutputRetries(ctx, step.taskId, step.step, attempt.attemptNumber) },
      policy,
    );
    if (!decision.retry) return deadLetter(decision.reason === 'corrective_retry_used' ? 'retry_ceiling' : 'permanent_error', failure);
    const exhausted = await budgetExhausted(ctx, step.taskId);
    if (exhausted) return deadLetter(exhausted, failure);
    return { status: 'retry', delayMs: decision.delayMs, attemptNumber: attempt.attemptNumber, errorClass: failure.errorClass };
  }

  if (started.attemptRow !== undefined) {
    await finishAttempt(ctx.db, started.attemptRow, { outcome: 'succeeded', finishedAt: new Date(), costMicros: output.costMicros ?? 0 });
  }
  await completeKey(ctx, { key, fencingToken: attempt.fencingToken, result: output.result ?? null });
  return { status: 'completed', result: output.result, attemptNumber: attempt.attemptNumber };
}

function isValidCost(cost: unknown): boolean {
  return cost === undefined || (Number.isSafeInteger(cost) && (cost as number) >= 0);
}

/** Retries of this step so far that were corrective retries after invalid output. */
async function invalidOutputRetries(ctx: CoreContext, taskId: string, step: string, attemptNumber: number): Promise<number> {
  const [row] = await ctx.db
    .select({ count: sql<number>`count(*)::int` })
    .from(attempts)
    .where(and(eq(attempts.taskId, taskId), eq(attempts.step, step), eq(attempts.errorClass, 'invalid_output'), lt(attempts.attemptNumber, attemptNumber)));
  return row?.count ?? 0;
}

/** Tells early that the next retry could not be paid for, so the caller stops now. */
async function budgetExhausted(ctx: CoreContext, taskId: string): Promise<Exclude<DeadLetterReason, 'permanent_error'> | undefined> {
  const [budget] = await ctx.db
    .select({
      noRetries: sql<boolean>`${taskBudgets.retriesUsed} >= ${taskBudgets.retryAllowance}`,
      overBudget: sql<boolean>`${taskBudgets.spendMicros} >= ${taskBudgets.spendCeilingMicros} or ${taskBudgets.deadline} <= now()`,
    })
    .from(taskBudgets)
    .where(eq(taskBudgets.taskId, taskId));
  if (budget?.noRetries) return 'retry_ceiling';
  if (budget?.overBudget) return 'budget_exhausted';
  return undefined;
}

async function exhaust(
  ctx: CoreContext,
  actor: Actor,
  step: z.output<typeof runStepInput>,
  attempt: StepAttempt,
  owner: string,
  reason: DeadLetterReason,
  failure: Pick<ClassifiedFailure, 'errorClass' | 'errorText'>,
): Promise<RunStepOutcome<never>> {
  const [spent] = await ctx.db
    .select({ micros: sql<number>`coalesce(sum(${attempts.costMicros}), 0)`.mapWith(Number) })
    .from(attempts)
    .where(and(eq(attempts.taskId, step.taskId), eq(attempts.step, step.step)));
  const [existing] = await ctx.db
    .select({ id: deadLetters.id })
    .from(deadLetters)
    .where(and(eq(deadLetters.taskId, step.taskId), eq(deadLetters.status, 'pending')));
  const { deadLetter, hold } = await deadLetterTask(ctx.db, actor, {
    taskId: step.taskId, agent: step.agent, step: step.step, queue: step.queue ?? step.agent,
    payload: step.content ?? null, reason, errorClass: failure.errorClass, lastError: failure.errorText,
    attempts: attempt.attemptNumber, spendMicros: spent?.micros ?? 0, owner,
  });
  const why = existing ? 'the task was already dead-lettered' : reason.replace('_', ' ');
  return { status: 'do_not_retry', code: 'DO_NOT_RETRY', reason: why, deadLetterId: deadLetter.id, holdId: hold.id };
}
