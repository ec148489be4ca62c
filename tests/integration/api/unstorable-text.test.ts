import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { createApiToken, InvalidInputError } from '../../../packages/engine/src/core';
import { deadLetters } from '../../../packages/engine/src/db/schema';
import { useApi } from '../../support/api-harness';
import { aPerson } from '../../support/actors';

/**
 * A lone UTF-16 surrogate ("\ud800") is valid JSON but no text: PostgreSQL
 * refuses it in jsonb, which answered 500 and logged the whole payload. Now
 * every input refuses it with 400 INVALID_INPUT naming the field, and the log
 * never holds more than the start of a message.
 */
const api = useApi();
const admin = aPerson('admin', 'admin@example.com');
const LONE = '\ud800';

const aDeadLetter = (payload: unknown) => ({
  taskId: `lone-${randomUUID()}`,
  agent: 'research',
  step: 'plan',
  queue: 'research',
  payload,
  reason: 'retry_ceiling',
  errorClass: 'transient',
  lastError: '503 from downstream',
  attempts: 3,
  spendMicros: 0,
  owner: 'team:platform',
});

describe('a lone surrogate in an agent body', () => {
  it('is refused 400 naming the field, at the top of the body', async () => {
    const response = await api.request('/api/v1/steps/begin', {
      body: { taskId: `t-${randomUUID()}`, agent: 'research', owner: 'team:platform', step: 'plan', content: LONE },
    });
    // The harness sends JSON.stringify's text: the escape itself, as an agent's JSON library would.
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      code: 'INVALID_INPUT',
      retryable: false,
      fieldErrors: { content: [expect.stringContaining('lone UTF-16 surrogate')] },
    });
  });

  it('is refused 400 naming the nested field (a dead letter payload), or the key it is in; nothing is written', async () => {
    const before = (await api.database.db.select().from(deadLetters)).length;
    const nested = await api.request('/api/v1/dead-letters', {
      body: aDeadLetter({ order: { lines: [{ note: `ok ${LONE} ok` }] } }),
    });
    expect(nested.status).toBe(400);
    expect(nested.body.fieldErrors).toEqual({ 'payload.order.lines.0.note': [expect.stringContaining('surrogate')] });

    const inKey = await api.request('/api/v1/dead-letters', { body: aDeadLetter({ [`a${LONE}`]: 1 }) });
    expect(inKey.status).toBe(400);
    expect(inKey.body.fieldErrors).toEqual({ 'payload.a\\ud800': [expect.stringContaining('surrogate')] });
    // A paired surrogate is a real character (an emoji): stored as it is.
    const emoji = await api.request('/api/v1/dead-letters', { body: aDeadLetter({ note: 'ok \ud83d\ude00' }) });
    expect(emoji.status, JSON.stringify(emoji.body)).toBe(201);
    expect((await api.database.db.select().from(deadLetters)).length).toBe(before + 1);
  });

  it('is refused by the library itself for a caller that is not HTTP (a server action, a script), naming the field', async () => {
    const refusal = await createApiToken(
      { db: api.database.db, actor: admin },
      { name: `agent ${LONE}`, scopes: ['ingest'] },
    ).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(InvalidInputError);
    expect((refusal as InvalidInputError).fieldErrors).toEqual({ name: [expect.stringContaining('surrogate')] });
  });
});

describe('the server log', () => {
  it('holds a bounded start of a failed query, never its parameters in full', async () => {
    const { describeForLog, logUnexpectedError } = await import('../../../lib/server/log-error');
    const payload = JSON.stringify({ secret: 's3cret', filler: 'x'.repeat(100_000) });
    // The error a failed insert throws: drizzle puts every parameter in its message.
    const failed = Object.assign(new Error(`Failed query: insert into dead_letters ... \nparams: ${payload}`), {
      cause: Object.assign(new Error('unsupported Unicode escape sequence'), { code: '22P05' }),
    });
    expect(describeForLog(failed).length).toBeLessThan(1_000);
    expect(describeForLog(failed)).toContain('[22P05]: unsupported Unicode escape sequence');

    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      logUnexpectedError(failed);
      const written = log.mock.calls.map((call) => call.join(' ')).join('\n');
      expect(written.length).toBeLessThan(3_000);
      expect(written).not.toContain('x'.repeat(400));
    } finally {
      log.mockRestore();
    }
  });
});
