import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { attempts, errorClass, type Attempt } from '../db/schema';
import type { CoreContext } from './context';
import { AttemptConflictError } from './errors';
import { cachedStatement } from './prepared';
import { parseInput } from './validation';

/** Agent and step names appear in URLs and metrics, so keep them plain. */
const name = z
  .string()
  .trim()
  .min(1, 'must not be blank')
  .max(100, 'must be at most 100 characters')
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/, 'may contain only letters, digits and _ . : -');

export const recordAttemptInput = z
  .strictObject({
    taskId: z.string().trim().min(1, 'must not be blank').max(200, 'must be at most 200 characters'),
    agent: name,
    step: name,
    attemptNumber: z.number().int().min(1, 'must be 1 or more (1 is the primary attempt)').max(10_000),
    startedAt: z.coerce.date<Date | string>(),
    finishedAt: z.coerce.date<Date | string>(),
    outcome: z.enum(['succeeded', 'failed']),
    errorClass: z.enum(errorClass.enumValues).optional(),
    errorText: z.string().max(10_000, 'must be at most 10,000 characters').optional(),
    /** Micro-dollars: 1 USD = 1,000,000. */
    costMicros: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
    idempotencyKey: z.string().min(1).max(500).optional(),
    runKey: z.string().min(1).max(200).optional(),
  })
  .superRefine((attempt, context) => {
    if (attempt.finishedAt.getTime() < attempt.startedAt.getTime()) {
      context.addIssue({ code: 'custom', path: ['finishedAt'], message: 'must not be before startedAt' });
    }
    if (attempt.outcome === 'failed') {
      if (!attempt.errorClass) {
        context.addIssue({ code: 'custom', path: ['errorClass'], message: 'is required for a failed attempt' });
      }
      if (!attempt.errorText || attempt.errorText.trim() === '') {
        context.addIssue({
          code: 'custom',
          path: ['errorText'],
          message: 'is required for a failed attempt: a failure with a blank error text cannot be triaged',
        });
      }
    } else if (attempt.errorClass) {
      context.addIssue({ code: 'custom', path: ['errorClass'], message: 'must be absent for a succeeded attempt' });
    }
  });

export type RecordAttemptInput = z.input<typeof recordAttemptInput>;

export interface RecordAttemptResult {
  attempt: Attempt;
  /** True when this exact attempt had already been recorded: the report was a redelivery. */
  duplicate: boolean;
}

/**
 * Records one finished attempt of a step. Reporting the same attempt again
 * (same task, step and attempt number, same content) returns the stored row
 * with `duplicate: true`; reporting it with different content is refused with
 * ATTEMPT_CONFLICT. The unique constraint decides, so concurrent duplicate
 * reports still produce exactly one row.
 */
export async function recordAttempt(ctx: CoreContext, input: RecordAttemptInput): Promise<RecordAttemptResult> {
  const attempt = parseInput(recordAttemptInput, input);
  const values = {
    taskId: attempt.taskId,
    agent: attempt.agent,
    step: attempt.step,
    attemptNumber: attempt.attemptNumber,
    startedAt: attempt.startedAt,
    finishedAt: attempt.finishedAt,
    latencyMs: attempt.finishedAt.getTime() - attempt.startedAt.getTime(),
    outcome: attempt.outcome,
    errorClass: attempt.errorClass ?? null,
    errorText: attempt.errorText ?? null,
    costMicros: attempt.costMicros,
    idempotencyKey: attempt.idempotencyKey ?? null,
    runKey: attempt.runKey ?? null,
  };

  const [inserted] = await insertAttempt(ctx.db).execute(values);
  if (inserted) return { attempt: inserted, duplicate: false };

  const [existing] = await ctx.db
    .select()
    .from(attempts)
    .where(
      and(
        eq(attempts.taskId, values.taskId),
        eq(attempts.step, values.step),
        eq(attempts.attemptNumber, values.attemptNumber),
      ),
    );
  if (!existing) {
    // The conflicting row cannot vanish: attempts are never deleted.
    throw new Error('recordAttempt: insert conflicted but no existing attempt was found');
  }
  const differences = differingFields(existing, values);
  if (differences.length > 0) {
    throw new AttemptConflictError(
      `Attempt ${values.attemptNumber} of step "${values.step}" in task "${values.taskId}" was already recorded ` +
        `with a different ${differences.join(', ')}; the first report stands`,
    );
  }
  return { attempt: existing, duplicate: true };
}

type AttemptValues = Omit<Attempt, 'id' | 'recordedAt'>;

const insertAttempt = cachedStatement((db) =>
  db
    .insert(attempts)
    .values({
      taskId: sql.placeholder('taskId'),
      agent: sql.placeholder('agent'),
      step: sql.placeholder('step'),
      attemptNumber: sql.placeholder('attemptNumber'),
      startedAt: sql.placeholder('startedAt'),
      finishedAt: sql.placeholder('finishedAt'),
      latencyMs: sql.placeholder('latencyMs'),
      outcome: sql.placeholder('outcome'),
      errorClass: sql.placeholder('errorClass'),
      errorText: sql.placeholder('errorText'),
      costMicros: sql.placeholder('costMicros'),
      idempotencyKey: sql.placeholder('idempotencyKey'),
      runKey: sql.placeholder('runKey'),
    })
    .onConflictDoNothing({ target: [attempts.taskId, attempts.step, attempts.attemptNumber] })
    .returning()
    .prepare('record_attempt'),
);

function differingFields(stored: Attempt, reported: AttemptValues): string[] {
  return (Object.keys(reported) as (keyof AttemptValues)[]).filter((field) => {
    const storedValue = stored[field];
    const reportedValue = reported[field];
    if (storedValue instanceof Date && reportedValue instanceof Date) {
      return storedValue.getTime() !== reportedValue.getTime();
    }
    return storedValue !== reportedValue;
  });
}
