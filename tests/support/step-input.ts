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

/**
 * What a finish names of the attempt a begin let run: its key and its fencing token (from the library's answer or an
 * HTTP body). Anything else is a failed test, said as such.
 */
export function attemptOf(begun: { decision?: unknown; key?: unknown; fencingToken?: unknown }) {
  const { decision, key, fencingToken } = begun;
  if ((decision !== undefined && decision !== 'run') || typeof key !== 'string' || typeof fencingToken !== 'number') {
    throw new Error(`expected a begin that runs, got ${JSON.stringify(begun).slice(0, 300)}`);
  }
  return { key, fencingToken };
}
