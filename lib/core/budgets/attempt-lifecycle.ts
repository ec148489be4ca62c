import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { attempts, type ErrorClass } from '../../db/schema';
import { addTaskSpend } from './task-budget';

export interface BeginAttempt {
  taskId: string;
  agent: string;
  step: string;
  attemptNumber: number;
  idempotencyKey: string;
  runKey?: string;
  startedAt: Date;
}

/**
 * Records an attempt as running, before the step runs. Returns its id, or
 * undefined when this attempt number was recorded already (a redelivery).
 */
export async function beginAttempt(db: Executor, attempt: BeginAttempt): Promise<number | undefined> {
  const [row] = await db
    .insert(attempts)
    .values({ ...attempt, runKey: attempt.runKey ?? null, outcome: 'running' })
    .onConflictDoNothing({ target: [attempts.taskId, attempts.step, attempts.attemptNumber] })
    .returning({ id: attempts.id });
  return row?.id;
}

export type AttemptEnd =
  | { outcome: 'succeeded'; costMicros: number; finishedAt: Date }
  | { outcome: 'failed'; costMicros: number; finishedAt: Date; errorClass: ErrorClass; errorText: string };

/** Completes a running attempt with its outcome, latency and cost; the cost joins the task's spend. */
export async function finishAttempt(db: Executor, attemptId: number, taskId: string, end: AttemptEnd): Promise<void> {
  await db.transaction(async (tx) => {
    await tx
      .update(attempts)
      .set({
        outcome: end.outcome,
        finishedAt: end.finishedAt,
        latencyMs: sql`greatest(0, round(extract(epoch from (${end.finishedAt.toISOString()}::timestamptz - ${attempts.startedAt})) * 1000))::int`,
        costMicros: end.costMicros,
        errorClass: end.outcome === 'failed' ? end.errorClass : null,
        errorText: end.outcome === 'failed' ? end.errorText : null,
      })
      .where(eq(attempts.id, attemptId));
    await addTaskSpend(tx, taskId, end.costMicros);
  });
}
