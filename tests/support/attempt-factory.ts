import { randomUUID } from 'node:crypto';
import type { RecordAttemptInput } from '../../packages/engine/src/core';

/** A valid succeeded attempt with a task id of its own; override what the test is about. */
export function anAttempt(overrides: Partial<RecordAttemptInput> = {}): RecordAttemptInput {
  const startedAt = new Date('2026-11-20T10:00:00.000Z');
  return {
    taskId: `task-${randomUUID()}`,
    agent: 'outreach',
    step: 'draft_email',
    attemptNumber: 1,
    startedAt,
    finishedAt: new Date(startedAt.getTime() + 1_250),
    outcome: 'succeeded',
    costMicros: 1_000,
    ...overrides,
  };
}

/** A failed attempt with a real error text. */
export function aFailedAttempt(overrides: Partial<RecordAttemptInput> = {}): RecordAttemptInput {
  return anAttempt({ outcome: 'failed', errorClass: 'transient', errorText: '503 from downstream', ...overrides });
}

/** An attempt as an agent posts it over HTTP (times as ISO text): a minute ago, a second long, succeeded. */
export function anAttemptBody(fields: Record<string, unknown> = {}): { taskId: string } & Record<string, unknown> {
  return {
    taskId: `task-${randomUUID()}`,
    agent: 'outreach',
    step: 'draft_email',
    attemptNumber: 1,
    startedAt: new Date(Date.now() - 60_000).toISOString(),
    finishedAt: new Date(Date.now() - 59_000).toISOString(),
    outcome: 'succeeded',
    ...fields,
  };
}
