import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { deadLetters, taskBudgets, type DeadLetter, type Hold } from '../../db/schema';
import type { Actor } from '../kernel/context';
import { MAX_HOLD_DETAIL } from '@holdfast/protocol/inputs/hold-input';
import { openHold } from '../holds/open-hold';
import { authorizeTaskAgent, registerTask, resolveTaskOf } from '../tasks/task-agent';
import { cutToLength, parseInput } from '@holdfast/protocol/validation';
import { deadLetterInput, type DeadLetterTaskInput } from '@holdfast/protocol/inputs/dead-letter-task-input';

export {
  deadLetterInput,
  MAX_PAYLOAD_BYTES,
  type DeadLetterTaskInput,
} from '@holdfast/protocol/inputs/dead-letter-task-input';

/**
 * Turns exhausted work into a dead letter with exactly one hold for a person,
 * however many workers exhaust the task at once: the pending dead letter and
 * the open hold are each unique in the database, and a loser of either race
 * gets the winner's row. Run it inside the caller's transaction.
 */
export async function deadLetterTask(
  db: Executor,
  actor: Actor,
  input: DeadLetterTaskInput,
): Promise<{ deadLetter: DeadLetter; hold: Hold }> {
  const parsed = parseInput(deadLetterInput, input);
  // The task's stored agent and queue decide (a task not seen yet: the names given); an id another agent's task
  // has is this agent's alias of it.
  const { taskId, stored } = await resolveTaskOf(db, parsed.agent, parsed.taskId);
  const item = { ...parsed, taskId };
  const { owner, ...letter } = item;
  const claimed = { taskId, agent: item.agent, queue: item.queue };
  await authorizeTaskAgent({ db, actor }, stored, claimed);
  return db.transaction(async (tx) => {
    // A task first seen here is stored with the names given; one stored meanwhile by another request is judged again.
    if (!stored) {
      const { task, registered } = await registerTask(tx, claimed, 'dead_letter');
      if (!registered) await authorizeTaskAgent({ db: tx, actor }, task, claimed);
    }
    // The task's row first: the step engine's finish holds it while it dead-letters, so taking
    // it after the dead letter's unique slot would let two exhausting workers deadlock.
    await tx
      .update(taskBudgets)
      .set({ status: 'dead_lettered', updatedAt: sql`now()` })
      .where(eq(taskBudgets.taskId, item.taskId));
    const [created] = await tx
      .insert(deadLetters)
      // A null payload is stored as JSON null: the column holds what the task carried, never nothing.
      .values({
        ...letter,
        payload: letter.payload === null || letter.payload === undefined ? sql`'null'::jsonb` : letter.payload,
      })
      .onConflictDoNothing({ target: deadLetters.taskId, where: sql`${deadLetters.status} = 'pending'` })
      .returning();
    const deadLetter =
      created ??
      (
        await tx
          .select()
          .from(deadLetters)
          .where(and(eq(deadLetters.taskId, item.taskId), eq(deadLetters.status, 'pending')))
      )[0];
    if (!deadLetter) throw new Error('deadLetterTask: conflict without a pending dead letter');

    const { hold } = await openHold(
      { db: tx, actor },
      {
        itemType: 'dead_letter',
        itemId: String(deadLetter.id),
        reason: deadLetter.reason,
        detail: cutToLength(
          `${deadLetter.step} stopped after ${deadLetter.attempts} attempt(s): ${deadLetter.errorClass} — ${deadLetter.lastError}`,
          MAX_HOLD_DETAIL,
        ),
        owner,
      },
    );
    return { deadLetter, hold };
  });
}
