import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createApiToken } from '../../../packages/engine/src/core';
import { apiRequests, attempts } from '../../../packages/engine/src/db/schema';
import { useApi } from '../../support/api-harness';
import { aPerson } from '../../support/actors';
import { anAttemptBody } from '../../support/attempt-factory';

/**
 * Stripe's rule for Idempotency-Key: a result is kept only once the endpoint
 * started executing. A request refused before that (400, 401, 403, 413, 429)
 * keeps nothing, so the corrected request may use the same key.
 */
const api = useApi();
const admin = aPerson('admin', 'admin@example.com');

const anAttempt = (overrides: Record<string, unknown> = {}) =>
  anAttemptBody({ taskId: `keyed-${randomUUID()}`, agent: 'research', step: 'plan', ...overrides });

async function keptRequests(key: string) {
  return api.database.db.select().from(apiRequests).where(eq(apiRequests.idempotencyKey, key));
}

describe('a request refused before it executes leaves its Idempotency-Key unused', () => {
  it('400 (validation), then the corrected request with the same key: acted on, not 422', async () => {
    const key = `fix-${randomUUID()}`;
    const attempt = anAttempt();
    const invalid = await api.request('/api/v1/attempts', {
      body: { ...attempt, attemptNumber: 0 },
      headers: { 'idempotency-key': key },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({ code: 'INVALID_INPUT', fieldErrors: { attemptNumber: expect.any(Array) } });
    expect(await keptRequests(key)).toEqual([]);

    const corrected = await api.request('/api/v1/attempts', { body: attempt, headers: { 'idempotency-key': key } });
    expect(corrected.status).toBe(201);
    expect(corrected.headers.get('idempotent-replayed')).toBeNull();
    // And from now on the key is the corrected request's: its retry is answered from it.
    const retried = await api.request('/api/v1/attempts', { body: attempt, headers: { 'idempotency-key': key } });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(await api.database.db.select().from(attempts).where(eq(attempts.taskId, attempt.taskId))).toHaveLength(1);
  });

  it('413 (too large) and broken JSON, then the real request with the same key', async () => {
    const key = `size-${randomUUID()}`;
    const attempt = anAttempt();
    const tooLarge = await api.request('/api/v1/attempts', {
      body: { ...attempt, errorText: 'x'.repeat(70 * 1024) },
      headers: { 'idempotency-key': key },
    });
    expect(tooLarge.status).toBe(413);
    const broken = await api.request('/api/v1/attempts', { body: '{"taskId":', headers: { 'idempotency-key': key } });
    expect(broken.status).toBe(400);
    expect(await keptRequests(key)).toEqual([]);
    expect((await api.request('/api/v1/attempts', { body: attempt, headers: { 'idempotency-key': key } })).status).toBe(
      201,
    );
  });

  it('401 (an unknown token), then the same request with a real token and the same key', async () => {
    const key = `auth-${randomUUID()}`;
    const attempt = anAttempt();
    const unauthorised = await api.request('/api/v1/attempts', {
      token: 'hf_not-a-token',
      body: attempt,
      headers: { 'idempotency-key': key },
    });
    expect(unauthorised.status).toBe(401);
    expect(await keptRequests(key)).toEqual([]);
    const real = await api.request('/api/v1/attempts', { body: attempt, headers: { 'idempotency-key': key } });
    expect(real.status).toBe(201);
    expect(real.headers.get('idempotent-replayed')).toBeNull();
    expect(await api.database.db.select().from(attempts).where(eq(attempts.taskId, attempt.taskId))).toHaveLength(1);
  });

  it("403 from the token's limits (found by the library, inside the handler), then the request it may make", async () => {
    const { token } = await createApiToken(
      { db: api.database.db, actor: admin },
      { name: `research-only-${randomUUID()}`, scopes: ['ingest'], allowedAgents: ['research'] },
    );
    const key = `limits-${randomUUID()}`;
    const forbidden = await api.request('/api/v1/attempts', {
      token,
      body: anAttempt({ agent: 'payments' }),
      headers: { 'idempotency-key': key },
    });
    expect(forbidden.status).toBe(403);
    expect(await keptRequests(key)).toEqual([]);
    const allowed = await api.request('/api/v1/attempts', {
      token,
      body: anAttempt({ agent: 'research' }),
      headers: { 'idempotency-key': key },
    });
    expect(allowed.status).toBe(201);
  });

  it('a result the endpoint reached is still kept: a conflict (409) is answered again, and another body is 422', async () => {
    const attempt = anAttempt();
    expect((await api.request('/api/v1/attempts', { body: attempt })).status).toBe(201);
    const key = `conflict-${randomUUID()}`;
    const conflicting = { ...attempt, costMicros: 9 };
    const first = await api.request('/api/v1/attempts', { body: conflicting, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(409);
    const again = await api.request('/api/v1/attempts', { body: conflicting, headers: { 'idempotency-key': key } });
    expect(again.status).toBe(409);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const other = await api.request('/api/v1/attempts', { body: anAttempt(), headers: { 'idempotency-key': key } });
    expect(other.status).toBe(422);
  });
});
