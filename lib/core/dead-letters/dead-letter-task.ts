import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Executor } from '../../db/client';
import { deadLetterReasons, deadLetters, errorClasses, taskBudgets, type DeadLetter, type Hold } from '../../db/schema';
import { enforceTokenLimits } from '../authorization';
import type { Actor } from '../context';
import { MAX_HOLD_DETAIL } from '../holds/hold-input';
import { openHold } from '../holds/open-hold';
import { cutToLength, int4, MICROS_MAX, parseInput } from '../validation';

export const MAX_PAYLOAD_BYTES = 256 * 1024;

export const deadLetterInput = z.strictObject({
  taskId: z.string().trim().min(1).max(200),
  agent: z.string().trim().min(1).max(100),
  step: z.string().trim().min(1).max(100),
  queue: z.string().trim().min(1).max(100),
  payload: z
    .unknown()
    .refine((value) => value !== undefined, 'is required')
    .refine((value) => (JSON.stringify(value) ?? '').length <= MAX_PAYLOAD_BYTES, `must serialise to at most ${MAX_PAYLOAD_BYTES / 1024} KiB`),
  reason: z.enum(deadLetterReasons),
  errorClass: z.enum(errorClasses),
  lastError: z.string().trim().min(1).max(10_000),
  attempts: int4(1),
  spendMicros: z.number().int().min(0).max(MICROS_MAX),
  owner: z.string().trim().min(1),
});
export type DeadLetterTaskInput = z.input<typeof deadLetterInput>;

/**
 * Turns exhausted work into a dead letter with exactly one hold for a person,
 * however many workers exhaust the task at once: the pending dead letter and
 * the open hold are each unique in the database, and a loser of either race
 * gets the winner's row. Run it inside the caller's transaction.
 */
export async function deadLetterTask(db: Executor, actor: Actor, input: DeadLetterTaskInput): Promise<{ deadLetter: DeadLetter; hold: Hold }> {
  const item = parseInput(deadLetterInput, input);
  const { owner, ...letter } = item;
  await enforceTokenLimits({ db, actor }, { agent: item.agent, queue: item.queue });
  return db.transaction(async (tx) => {
    // The task's row first: the step engine's finish holds it while it dead-letters, so taking
    // it after the dead letter's unique slot would let two exhausting workers deadlock.
    await tx.update(taskBudgets).set({ status: 'dead_lettered', updatedAt: sql`now()` }).where(eq(taskBudgets.taskId, item.taskId));
    const [created] = await tx
      .insert(deadLetters)
      // A null payload is stored as JSON null: the column holds what the task carried, never nothing.
      .values({ ...letter, payload: letter.payload === null || letter.payload === undefined ? sql`'null'::jsonb` : letter.payload })
      .onConflictDoNothing({ target: deadLetters.taskId, where: sql`${deadLetters.status} = 'pending'` })
      .returning();
    const deadLetter =
      created ??
      (await tx.select().from(deadLetters).where(and(eq(deadLetters.taskId, item.taskId), eq(deadLetters.status, 'pending'))))[0];
    if (!deadLetter) throw new Error('deadLetterTask: conflict without a pending dead letter');

    const { hold } = await openHold(
      { db: tx, actor },
      {
        itemType: 'dead_letter',
        itemId: String(deadLetter.id),
        reason: deadLetter.reason,
        detail: cutToLength(`${deadLetter.step} stopped after ${deadLetter.attempts} attempt(s): ${deadLetter.errorClass} — ${deadLetter.lastError}`, MAX_HOLD_DETAIL),
        owner,
      },
    );
    return { deadLetter, hold };
  });
}
