import { randomUUID } from 'node:crypto';
import type { DeadLetterTaskInput } from '../../packages/engine/src/core';
import type { Database } from '../../packages/engine/src/db/client';
import { deadLetters, holds } from '../../packages/engine/src/db/schema';

/**
 * A dead letter as an agent reports it, for a task of its own: a card declined for good on the payments queue.
 * A test names only the fields it is about.
 */
export function aDeadLetterInput(fields: Partial<DeadLetterTaskInput> = {}): DeadLetterTaskInput {
  return {
    taskId: `task-${randomUUID()}`,
    agent: 'payments',
    step: 'charge',
    queue: 'payments',
    payload: {},
    reason: 'permanent_error',
    errorClass: 'permanent',
    lastError: 'card declined',
    attempts: 1,
    spendMicros: 0,
    owner: 'team:payments',
    ...fields,
  };
}

/**
 * `count` dead letters of one queue as rows to insert set-based: retries ran out on a card network's 503s, each
 * its own task. `fields(index)` changes what a test is about.
 */
export function retriedOutRows<Fields extends object = Partial<typeof deadLetters.$inferInsert>>(
  queue: string,
  count: number,
  fields: (index: number) => Fields = () => ({}) as Fields,
) {
  return Array.from({ length: count }, (_, index) => ({
    taskId: `${queue}-task-${index}-${randomUUID()}`,
    agent: 'payments',
    step: 'charge',
    queue,
    payload: { index },
    reason: 'retry_ceiling' as const,
    errorClass: 'transient' as const,
    lastError: `503 from the card network (${index})`,
    attempts: 3,
    spendMicros: 1_500,
    ...fields(index),
  }));
}

/**
 * Pending dead letters as the library leaves them, each with its open hold for the payments team, written
 * set-based 500 rows a statement.
 */
export async function insertWithHolds(db: Database, rows: (typeof deadLetters.$inferInsert)[]) {
  const created: (typeof deadLetters.$inferSelect)[] = [];
  for (let index = 0; index < rows.length; index += 500) {
    created.push(
      ...(await db
        .insert(deadLetters)
        .values(rows.slice(index, index + 500))
        .returning()),
    );
  }
  for (let index = 0; index < created.length; index += 500) {
    await db.insert(holds).values(
      created.slice(index, index + 500).map((letter) => ({
        itemType: 'dead_letter' as const,
        itemId: String(letter.id),
        reason: 'retry_ceiling' as const,
        owner: 'team:payments',
        detail: 'retries ran out',
        openedBy: 'agent:payments',
      })),
    );
  }
  return created;
}
