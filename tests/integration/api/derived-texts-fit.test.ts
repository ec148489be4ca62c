import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { openHold, type DeadLetterTaskInput } from '../../../packages/engine/src/core';
import { holds } from '../../../packages/engine/src/db/schema';
import { addKnownOwners } from '../../support/known-owners';
import { useApi } from '../../support/api-harness';
import { anAgent } from '../../support/actors';

const api = useApi();
// The owners its agents name are known (an unknown one would be given the default owner).
beforeAll(() => addKnownOwners(api.database.db, ['team:payments']));
const agent = anAgent('payments-worker');

function aDeadLetter(overrides: Record<string, unknown> = {}): DeadLetterTaskInput {
  return {
    taskId: `dl-${randomUUID()}`,
    agent: 'payments',
    step: 'charge',
    queue: 'payments',
    payload: { cents: 100 },
    reason: 'permanent_error',
    errorClass: 'permanent',
    lastError: 'card declined',
    attempts: 3,
    spendMicros: 1_000,
    owner: 'team:payments',
    ...overrides,
  } as DeadLetterTaskInput;
}

describe('a valid request is never refused for a text the library derives from it', () => {
  it.each([6_000, 10_000])(
    'accepts a dead letter with a %i-character lastError; the hold detail is cut to its 5,000 characters',
    async (length) => {
      const lastError = `Error: ${'x'.repeat(length - 7)}`;
      const response = await api.request('/api/v1/dead-letters', { body: aDeadLetter({ lastError }) });
      expect(response.status).toBe(201);
      const body = response.body as { deadLetter: { lastError: string }; hold: { id: number } };
      expect(body.deadLetter.lastError).toHaveLength(length);
      const [hold] = await api.database.db.select().from(holds).where(eq(holds.id, body.hold.id));
      expect(hold?.detail).toHaveLength(5_000);
      expect(hold?.detail.endsWith('…')).toBe(true);
    },
  );

  it('keeps the uncertain-outcome hold of a step failing after its claim with a 10,000-character error text', async () => {
    const taskId = `step-${randomUUID()}`;
    const begun = await api.request('/api/v1/steps/begin', {
      body: {
        taskId,
        agent: 'payments',
        owner: 'team:payments',
        step: 'charge',
        content: {},
        downstreamIdempotent: false,
        inProgressTtlMs: 60_000,
      },
    });
    expect(begun.body.decision).toBe('run');
    // The claim expires: moved into the past by hand, not slept through.
    const expired = await api.database
      .sql`update idempotency_keys set locked_until = now() - interval '1 second' where key = ${String(begun.body.key)}`;
    expect(expired.count).toBe(1);
    const finished = await api.request('/api/v1/steps/finish', {
      body: {
        key: begun.body.key,
        fencingToken: begun.body.fencingToken,
        outcome: 'failed',
        errorClass: 'timeout',
        errorText: 'y'.repeat(10_000),
      },
    });
    expect(finished).toMatchObject({ status: 409, body: { decision: 'stop', code: 'UNCERTAIN_OUTCOME' } });
    const [hold] = await api.database.db
      .select()
      .from(holds)
      .where(eq(holds.id, Number(finished.body.holdId)));
    expect(hold?.detail.length).toBeLessThanOrEqual(5_000);
  });
});

describe('inputs are bounded to their columns', () => {
  it.each([
    ['attempts', { attempts: 3_000_000_000 }],
    ['spendMicros', { spendMicros: Number.MAX_SAFE_INTEGER + 2 }],
  ])('answers 400 naming %s when it exceeds its column, not a 500', async (field, overrides) => {
    const response = await api.request('/api/v1/dead-letters', { body: aDeadLetter(overrides) });
    expect(response).toMatchObject({
      status: 400,
      body: { code: 'INVALID_INPUT', fieldErrors: { [field]: expect.arrayContaining([expect.any(String)]) } },
    });
  });

  it('answers 400 for an attempt number of a step finish beyond int4', async () => {
    const response = await api.request('/api/v1/steps/finish', {
      body: { key: 'k', fencingToken: 1, attemptNumber: 3_000_000_000, outcome: 'succeeded' },
    });
    expect(response).toMatchObject({ status: 400, body: { fieldErrors: { attemptNumber: [expect.any(String)] } } });
  });

  it('refuses a NUL character in any text of an in-process call, nested payloads included', async () => {
    await expect(
      openHold(
        { db: api.database.db, actor: agent },
        { itemType: 'task', itemId: 'a\u0000b', reason: 'manual', detail: 'x', owner: 'team:payments' },
      ),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { itemId: [expect.stringContaining('NUL')] },
    });
    const { deadLetterTask } = await import('../../../packages/engine/src/core');
    await expect(
      deadLetterTask(api.database.db, agent, aDeadLetter({ payload: { note: ['ok', 'bad\u0000'] } })),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { 'payload.note.1': [expect.stringContaining('NUL')] },
    });
  });
});
