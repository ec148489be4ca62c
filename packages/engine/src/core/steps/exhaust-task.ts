import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { attempts, deadLetters, type DeadLetterReason, type ErrorClass } from '../../db/schema';
import type { Actor } from '../kernel/context';
import { deadLetterTask } from '../dead-letters/dead-letter-task';
import type { StopAnswer, StopReason } from '@holdfast/protocol/steps/step-protocol';

/** The stop reasons that end in a dead letter, and the dead letter's (and its hold's) reason for each. */
const deadLetterReasonFor = {
  retry_ceiling: 'retry_ceiling',
  corrective_retry_used: 'retry_ceiling',
  budget_exhausted: 'budget_exhausted',
  deadline_passed: 'budget_exhausted',
  permanent_error: 'permanent_error',
} as const satisfies Partial<Record<StopReason, DeadLetterReason>>;
export type ExhaustionReason = keyof typeof deadLetterReasonFor;

export interface ExhaustedStep {
  taskId: string;
  agent: string;
  step: string;
  queue: string;
  payload: unknown;
  owner: string;
  attemptNumber: number;
}

/**
 * Exhausted work goes somewhere: the task becomes a dead letter with exactly
 * one hold for its owner (both unique in the database, however many workers
 * exhaust it at once), and the caller is told to stop with DO_NOT_RETRY.
 */
export async function exhaustTask(
  db: Executor,
  actor: Actor,
  step: ExhaustedStep,
  reason: ExhaustionReason,
  failure: { errorClass: ErrorClass; errorText: string },
  detail: string,
): Promise<StopAnswer> {
  const [spent] = await db
    .select({ micros: sql<number>`coalesce(sum(${attempts.costMicros}), 0)`.mapWith(Number) })
    .from(attempts)
    .where(and(eq(attempts.taskId, step.taskId), eq(attempts.step, step.step)));
  const [earlier] = await db
    .select({ id: deadLetters.id })
    .from(deadLetters)
    .where(and(eq(deadLetters.taskId, step.taskId), eq(deadLetters.status, 'pending')));
  const { deadLetter, hold } = await deadLetterTask(db, actor, {
    taskId: step.taskId,
    agent: step.agent,
    step: step.step,
    queue: step.queue,
    payload: step.payload ?? null,
    reason: deadLetterReasonFor[reason],
    errorClass: failure.errorClass,
    lastError: failure.errorText,
    attempts: step.attemptNumber,
    // The dead letter keeps what the step spent as a safe integer: thousands of attempts at the
    // largest accepted cost would pass it, and a dead letter must never fail to be written.
    spendMicros: Math.min(spent?.micros ?? 0, Number.MAX_SAFE_INTEGER),
    owner: step.owner,
  });
  return {
    decision: 'stop',
    code: 'DO_NOT_RETRY',
    reason,
    detail: earlier ? `${detail}; the task was already dead-lettered` : detail,
    deadLetterId: deadLetter.id,
    holdId: hold.id,
  };
}
