import { randomUUID } from 'node:crypto';
import type { BeginStepInput } from '../../packages/engine/src/core';

/**
 * A step's begin with a task of its own: an outreach agent drafting an email for a known owner. A test names
 * only what it is about; every call is a new task, so no two tests share a key.
 */
export function aStepInput(fields: Partial<BeginStepInput> = {}): BeginStepInput {
  return {
    taskId: `task-${randomUUID()}`,
    agent: 'outreach',
    owner: 'team:growth',
    step: 'draft_email',
    content: { lead: 7 },
    ...fields,
  };
}
