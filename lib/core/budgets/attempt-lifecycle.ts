import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { attempts, type ErrorClass } from '../../db/schema';
import { addTaskSpend } from './task-budget';

export interface BeginAttempt {
  taskId: string;
  agent: string;
  step: string;
  /** The pass of a looped step (0 when it is not looped): each pass numbers its attempts from 1. */
  iteration: number;
  attemptNumber: number;
  idempotencyKey: string;
  runKey?: string;
  startedAt: Date;
  /** How the attempt reaches Holdfast: the step protocol over HTTP, or in-process. */
  source: 'http' | 'library';
}

/** Names a running attempt row: its primary key, which includes the partition column. */
export interface AttemptRef {
  taskId: string;
  step: string;
  iteration: number;
  attemptNumber: number;
  startedAt: Date;
}

/**
 * Records an attempt as running, before the step runs. Returns a reference to
 * its row, or undefined when this attempt number was recorded already (a
 * redelivery): its identity is taken.
 */
export async function beginAttempt(db: Executor, attempt: BeginAttempt): Promise<AttemptRef | undefined> {
  const rows = await db.execute<{ started_at: Date }>(sql`
    with identity as (
      insert into attempt_identities (task_id, step, iteration, attempt_number, started_at)
      values (${attempt.taskId}::text, ${attempt.step}::text, ${attempt.iteration}::int, ${attempt.attemptNumber}::int,
        ${attempt.startedAt.toISOString()}::timestamptz)
      on conflict do nothing
      returning 1
    )
    insert into attempts (task_id, agent, step, iteration, attempt_number, idempotency_key, run_key, started_at, outcome, source)
    select ${attempt.taskId}::text, ${attempt.agent}::text, ${attempt.step}::text, ${attempt.iteration}::int, ${attempt.attemptNumber}::int,
      ${attempt.idempotencyKey}::text, ${attempt.runKey ?? null}::text, ${attempt.startedAt.toISOString()}::timestamptz, 'running',
      ${attempt.source}::text
    where exists (select 1 from identity)
    returning started_at`);
  return rows[0]
    ? {
        taskId: attempt.taskId,
        step: attempt.step,
        iteration: attempt.iteration,
        attemptNumber: attempt.attemptNumber,
        startedAt: attempt.startedAt,
      }
    : undefined;
}

export type AttemptEnd =
  | { outcome: 'succeeded'; costMicros: number; finishedAt: Date }
  | { outcome: 'failed'; costMicros: number; finishedAt: Date; errorClass: ErrorClass; errorText: string };

/** Completes a running attempt with its outcome, latency and cost; the cost joins the task's spend. */
export async function finishAttempt(db: Executor, attempt: AttemptRef, end: AttemptEnd): Promise<void> {
  await db.transaction(async (tx) => {
    await tx
      .update(attempts)
      .set({
        outcome: end.outcome,
        // A wall clock that stepped back must not finish an attempt before it started.
        finishedAt: sql`greatest(${end.finishedAt.toISOString()}::timestamptz, ${attempts.startedAt})`,
        latencyMs: sql`greatest(0, round(extract(epoch from (${end.finishedAt.toISOString()}::timestamptz - ${attempts.startedAt})) * 1000))::int`,
        costMicros: end.costMicros,
        errorClass: end.outcome === 'failed' ? end.errorClass : null,
        errorText: end.outcome === 'failed' ? end.errorText : null,
      })
      .where(
        and(
          eq(attempts.taskId, attempt.taskId),
          eq(attempts.step, attempt.step),
          eq(attempts.iteration, attempt.iteration),
          eq(attempts.attemptNumber, attempt.attemptNumber),
          eq(attempts.startedAt, attempt.startedAt),
        ),
      );
    await addTaskSpend(tx, attempt.taskId, end.costMicros);
  });
}
