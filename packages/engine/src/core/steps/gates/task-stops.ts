import { and, eq } from 'drizzle-orm';
import { deadLetters, holds, idempotencyKeys, type ErrorClass, type TaskStatus } from '../../../db/schema';
import type { StopAnswer } from '@holdfast/protocol/steps/step-protocol';
import type { CoreContext } from '../../kernel/context';
import { exhaustTask, type ExhaustionReason } from '../exhaust-task';
import { countBudgetRefusal, refusalLabel } from './budget-refusals';
import type { Refusal } from './gate';

/** A task that is not active starts no step: the stop names the hold or dead letter a person acts on. */
export function inactiveTaskStop(status: TaskStatus): Refusal {
  return { gate: 'task', answer: ({ ctx, request }) => stopForTaskState(ctx, request.taskId, status) };
}

/** A task out of time, retries or spend ends here: counted, dead-lettered with the step's last failure, and held. */
export function exhaustedStop(reason: ExhaustionReason, detail: string): Refusal {
  return {
    gate: 'task',
    async answer({ ctx, request, key, now, actor, taskSeen }) {
      await countBudgetRefusal(ctx, request.agent, request.step, refusalLabel[reason], now);
      const { failure, attemptNumber } = await stepSoFar(ctx, key, detail);
      const { owner } = await taskSeen();
      const { taskId, agent, step, queue } = request;
      const exhausted = { taskId, agent, step, queue, payload: request.content ?? null, owner, attemptNumber };
      return exhaustTask(ctx.db, actor, exhausted, reason, failure, detail);
    },
  };
}

async function stopForTaskState(ctx: CoreContext, taskId: string, status: TaskStatus): Promise<StopAnswer> {
  if (status === 'frozen') {
    const [hold] = await ctx.db
      .select({ id: holds.id })
      .from(holds)
      .where(and(eq(holds.itemType, 'task'), eq(holds.itemId, taskId), eq(holds.status, 'open')));
    return {
      decision: 'stop',
      code: 'TASK_FROZEN',
      reason: 'task_frozen',
      detail: `Task "${taskId}" is frozen; its owner resumes it by clearing its hold`,
      holdId: hold?.id,
    };
  }
  if (status === 'dead_lettered') {
    const [letter] = await ctx.db
      .select({ id: deadLetters.id })
      .from(deadLetters)
      .where(and(eq(deadLetters.taskId, taskId), eq(deadLetters.status, 'pending')));
    const [hold] = letter
      ? await ctx.db
          .select({ id: holds.id })
          .from(holds)
          .where(and(eq(holds.itemType, 'dead_letter'), eq(holds.itemId, String(letter.id)), eq(holds.status, 'open')))
      : [];
    return {
      decision: 'stop',
      code: 'DO_NOT_RETRY',
      reason: 'task_dead_lettered',
      detail: `Task "${taskId}" is dead-lettered; it runs again only when a person redrives it`,
      deadLetterId: letter?.id,
      holdId: hold?.id,
    };
  }
  return {
    decision: 'stop',
    code: 'TASK_FINISHED',
    reason: 'task_finished',
    detail: `Task "${taskId}" is ${status.replace('_', ' ')}; it starts no new step`,
  };
}

/**
 * What the step's key says so far, for the dead letter: its last failure (else
 * the refusal itself) and the attempts made (the refused claim was rolled back).
 */
async function stepSoFar(
  ctx: CoreContext,
  key: string,
  refusal: string,
): Promise<{ failure: { errorClass: ErrorClass; errorText: string }; attemptNumber: number }> {
  const [row] = await ctx.db
    .select({
      errorClass: idempotencyKeys.errorClass,
      errorText: idempotencyKeys.errorText,
      acquisitions: idempotencyKeys.acquisitions,
    })
    .from(idempotencyKeys)
    .where(eq(idempotencyKeys.key, key));
  const failure =
    row?.errorClass && row.errorText
      ? { errorClass: row.errorClass, errorText: row.errorText }
      : { errorClass: 'unknown' as const, errorText: `not begun: ${refusal}` };
  return { failure, attemptNumber: Math.max(1, row?.acquisitions ?? 1) };
}
