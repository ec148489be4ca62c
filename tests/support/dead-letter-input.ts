import { randomUUID } from 'node:crypto';
import type { DeadLetterTaskInput } from '../../packages/engine/src/core';

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
