import 'server-only';
import { and, asc, eq, or, sql } from 'drizzle-orm';
import type { RedriveBrakes } from '@holdfast/engine/core';
import { redriveBrakesRefusing } from '@holdfast/engine/core';
import type { Executor } from '@holdfast/engine/db';
import { attempts, auditLog, deadLetters, holds, redrives } from '@holdfast/engine/db/schema';
import { selectDeadLettersWithHistory } from './dead-letters';

/**
 * Everything about one dead letter for its page: the letter itself (payload
 * included), the brakes refusing its redrive now, every attempt of its failed
 * step, the holds on it or its task, and its task's redrives, each with the
 * reason from its audit record. Undefined when there is no such dead letter.
 */
export async function getDeadLetterDetail(db: Executor, id: number, redrive: { brakes: RedriveBrakes; now: Date }) {
  const [found] = await selectDeadLettersWithHistory(db).where(eq(deadLetters.id, id));
  if (!found) return undefined;
  const { deadLetter, history } = found;

  const [stepAttempts, itsHolds, taskRedrives] = await Promise.all([
    db
      .select({
        attemptNumber: attempts.attemptNumber,
        outcome: attempts.outcome,
        errorClass: attempts.errorClass,
        errorText: attempts.errorText,
        latencyMs: attempts.latencyMs,
        costMicros: attempts.costMicros,
        startedAt: attempts.startedAt,
      })
      .from(attempts)
      .where(and(eq(attempts.taskId, deadLetter.taskId), eq(attempts.step, deadLetter.step)))
      .orderBy(asc(attempts.startedAt), asc(attempts.attemptNumber)),
    db
      .select()
      .from(holds)
      .where(
        or(
          and(eq(holds.itemType, 'dead_letter'), eq(holds.itemId, String(deadLetter.id))),
          and(eq(holds.itemType, 'task'), eq(holds.itemId, deadLetter.taskId)),
        ),
      )
      .orderBy(asc(holds.openedAt), asc(holds.id)),
    // Every redrive of the task, not only this letter's: a task dead-lettered again after a
    // redrive has a new dead letter, and the brakes count the task's redrives.
    db
      .select({
        id: redrives.id,
        deadLetterId: redrives.deadLetterId,
        taskId: redrives.taskId,
        payloadEdited: redrives.payloadEdited,
        requestedBy: redrives.requestedBy,
        requestedAt: redrives.requestedAt,
        deliveredAt: redrives.deliveredAt,
        deliveryAttempts: redrives.deliveryAttempts,
        lastError: redrives.lastError,
        reason: auditLog.reason,
      })
      .from(redrives)
      .innerJoin(deadLetters, eq(deadLetters.id, redrives.deadLetterId))
      .leftJoin(
        auditLog,
        and(
          eq(auditLog.targetType, 'dead_letter'),
          eq(auditLog.targetId, sql`${redrives.deadLetterId}::text`),
          eq(auditLog.action, 'dead_letter.redrive'),
          sql`${auditLog.after}->>'outboxKey' = ${redrives.outboxKey}`,
        ),
      )
      .where(eq(deadLetters.taskId, deadLetter.taskId))
      .orderBy(asc(redrives.requestedAt), asc(redrives.id)),
  ]);

  return {
    deadLetter,
    // Only a pending letter can be redriven; a task without a budget row has no history to brake on.
    brakes:
      deadLetter.status === 'pending' && history ? redriveBrakesRefusing(history, redrive.brakes, redrive.now) : [],
    attempts: stepAttempts,
    holds: itsHolds,
    redrives: taskRedrives.map((row, index) => ({ ...row, number: index + 1 })),
  };
}

export type DeadLetterDetail = NonNullable<Awaited<ReturnType<typeof getDeadLetterDetail>>>;
