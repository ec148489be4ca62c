import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { NextRequest } from 'next/server';
import { describe, expect, it } from 'vitest';
import {
  type Actor,
  createApiToken,
  InvalidInputError,
  setApiTokenRateLimit,
  takeRequestToken,
} from '../../../packages/engine/src/core';
import { connectDatabase } from '../../../packages/engine/src/db/client';
import { apiTokenBuckets, apiTokens, auditLog } from '../../../packages/engine/src/db/schema';
import { useApi } from '../../support/api-harness';
import { aPerson } from '../../support/actors';
import { anAttemptBody } from '../../support/attempt-factory';

/**
 * The agent API's rate limit: a token bucket per API token, kept in
 * PostgreSQL so that every instance on the database shares it. The bucket's
 * clock is the database's; where a test needs time to pass, it passes `at`.
 */
const api = useApi();
const admin = aPerson('admin', 'admin@example.com');

async function tokenWithLimit(ratePerSecond: number, rateBurst: number) {
  const { token, record } = await createApiToken(
    { db: api.database.db, actor: admin },
    { name: `limited-${randomUUID()}`, scopes: ['ingest', 'read'], ratePerSecond, rateBurst },
  );
  return { token, id: record.id };
}

const anAttempt = (overrides: Record<string, unknown> = {}) =>
  anAttemptBody({ taskId: `rate-${randomUUID()}`, ...overrides });

describe('the token bucket (time as input)', () => {
  it('grants the burst, refuses the rest with the seconds until a request is back, and refills at the rate', async () => {
    const { id } = await tokenWithLimit(2, 5);
    const t0 = new Date('2026-12-01T10:00:00.000Z');
    const at = (ms: number) => new Date(t0.getTime() + ms);
    const limit = { perSecond: 2, burst: 5 };

    const burst = [];
    for (let i = 0; i < 8; i++) burst.push(await takeRequestToken(api.database.db, id, limit, t0));
    expect(burst.filter((decision) => decision.granted)).toHaveLength(5);
    expect(burst.slice(5)).toEqual([
      { granted: false, retryAfterSeconds: 1 },
      { granted: false, retryAfterSeconds: 1 },
      { granted: false, retryAfterSeconds: 1 },
    ]);

    // 1.25 s at 2 a second: 2.5 requests back, so 2 granted and the third refused.
    const later = [];
    for (let i = 0; i < 3; i++) later.push((await takeRequestToken(api.database.db, id, limit, at(1_250))).granted);
    expect(later).toEqual([true, true, false]);

    // A clock that steps back refills nothing; a long pause refills to the burst, never beyond.
    expect(await takeRequestToken(api.database.db, id, limit, at(0))).toEqual({ granted: false, retryAfterSeconds: 1 });
    const afterAnHour = [];
    for (let i = 0; i < 7; i++)
      afterAnHour.push((await takeRequestToken(api.database.db, id, limit, at(3_600_000))).granted);
    expect(afterAnHour.filter(Boolean)).toHaveLength(5);
  });

  it('says how long until the next request at a slow rate', async () => {
    const { id } = await tokenWithLimit(0.1, 1);
    const t0 = new Date('2026-12-01T10:00:00.000Z');
    const limit = { perSecond: 0.1, burst: 1 };
    expect(await takeRequestToken(api.database.db, id, limit, t0)).toEqual({ granted: true });
    expect(await takeRequestToken(api.database.db, id, limit, t0)).toEqual({ granted: false, retryAfterSeconds: 10 });
    expect(await takeRequestToken(api.database.db, id, limit, new Date(t0.getTime() + 4_000))).toEqual({
      granted: false,
      retryAfterSeconds: 6,
    });
  });

  it('is one bucket for two instances on the database: concurrent requests from both get exactly the burst', async () => {
    const { id } = await tokenWithLimit(0.01, 7);
    const limit = { perSecond: 0.01, burst: 7 };
    const instances = [
      connectDatabase(api.database.url, { maxConnections: 5 }),
      connectDatabase(api.database.url, { maxConnections: 5 }),
    ];
    try {
      const decisions = await Promise.all(
        instances.flatMap((instance) => Array.from({ length: 20 }, () => takeRequestToken(instance.db, id, limit))),
      );
      expect(decisions.filter((decision) => decision.granted)).toHaveLength(7);
      expect(decisions.filter((decision) => !decision.granted)).toHaveLength(33);
    } finally {
      await Promise.all(instances.map((instance) => instance.close()));
    }
  });
});

describe('the agent API over the limit', () => {
  it('answers exactly the requests past the burst 429 RATE_LIMITED with Retry-After, retryable', async () => {
    const { token } = await tokenWithLimit(0.01, 3);
    const statuses: number[] = [];
    const refusals = [];
    for (let i = 0; i < 10; i++) {
      const response = await api.request('/api/v1/attempts', { token, body: anAttempt() });
      statuses.push(response.status);
      if (response.status === 429) refusals.push(response);
    }
    expect(statuses).toEqual([201, 201, 201, 429, 429, 429, 429, 429, 429, 429]);
    for (const refusal of refusals) {
      expect(refusal.headers.get('content-type')).toContain('application/problem+json');
      expect(refusal.body).toMatchObject({ code: 'RATE_LIMITED', retryable: true, status: 429 });
      // 0.01 a second: the next request is back in 100 s, less the refill since the bucket emptied (on a loaded
      // machine the ten requests can take more than a second).
      expect(refusal.body.retryAfterSeconds).toBeGreaterThanOrEqual(90);
      expect(refusal.body.retryAfterSeconds).toBeLessThanOrEqual(100);
      expect(refusal.headers.get('retry-after')).toBe(String(refusal.body.retryAfterSeconds));
    }
  });

  it('limits every agent route (a GET, the OpenAPI document, the scrape); a concurrent burst gets exactly its size', async () => {
    const { token } = await tokenWithLimit(0.01, 4);
    const concurrent = await Promise.all(
      Array.from({ length: 12 }, () => api.request('/api/v1/attempts', { token, body: anAttempt() })),
    );
    expect(concurrent.filter((response) => response.status === 201)).toHaveLength(4);
    expect(concurrent.filter((response) => response.status === 429)).toHaveLength(8);
    const openApi = await api.request('/api/v1/openapi.json', { token, method: 'GET' });
    expect(openApi.status).toBe(429);
    expect(Number(openApi.headers.get('retry-after'))).toBeGreaterThanOrEqual(90);
    expect(Number(openApi.headers.get('retry-after'))).toBeLessThanOrEqual(100);
    // Routes the harness does not list, called as Next would.
    const get = (path: string) =>
      new NextRequest(`http://holdfast.test${path}`, { headers: { authorization: `Bearer ${token}` } });
    const stepStats = await (await import('../../../app/api/v1/step-stats/route')).GET(get('/api/v1/step-stats'));
    const metrics = await (await import('../../../app/metrics/route')).GET(get('/metrics'));
    for (const response of [stepStats, metrics]) {
      expect(response.status).toBe(429);
      // Importing the routes takes a moment, which the bucket refills for: a second or so less to wait.
      const retryAfter = Number(response.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(90);
      expect(retryAfter).toBeLessThanOrEqual(100);
      expect(await response.json()).toMatchObject({
        code: 'RATE_LIMITED',
        retryable: true,
        retryAfterSeconds: retryAfter,
      });
    }
  });

  it('refuses a request of a token with another scope 429 too once it is over (every known token counts)', async () => {
    const { token: metricsOnly, record } = await createApiToken(
      { db: api.database.db, actor: admin },
      { name: `metrics-${randomUUID()}`, scopes: ['metrics'], ratePerSecond: 0.01, rateBurst: 1 },
    );
    expect((await api.request('/api/v1/attempts', { token: metricsOnly, body: anAttempt() })).status).toBe(403);
    expect((await api.request('/api/v1/attempts', { token: metricsOnly, body: anAttempt() })).status).toBe(429);
    const [bucket] = await api.database.db.select().from(apiTokenBuckets).where(eq(apiTokenBuckets.tokenId, record.id));
    expect(bucket).toMatchObject({ granted: false });
  });

  it('leaves the Idempotency-Key of a refused request unused: after the refill the same key acts', async () => {
    const { token, id } = await tokenWithLimit(0.01, 1);
    const key = `rate-${randomUUID()}`;
    const attempt = anAttempt();
    expect((await api.request('/api/v1/attempts', { token, body: anAttempt() })).status).toBe(201);
    const refused = await api.request('/api/v1/attempts', {
      token,
      body: attempt,
      headers: { 'idempotency-key': key },
    });
    expect(refused.status).toBe(429);
    // The bucket refills (by hand here, instead of waiting 100 s).
    await api.database.db.update(apiTokenBuckets).set({ tokens: 1 }).where(eq(apiTokenBuckets.tokenId, id));
    const accepted = await api.request('/api/v1/attempts', {
      token,
      body: attempt,
      headers: { 'idempotency-key': key },
    });
    expect(accepted.status).toBe(201);
    expect(accepted.headers.get('idempotent-replayed')).toBeNull();
  });

  it('lets tokens without a limit of their own run at the generous default', async () => {
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => api.request('/api/v1/attempts', { body: anAttempt() })),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(50).fill(201));
  });
});

describe("setting a token's rate", () => {
  it('is for admins, validated, audit-logged with before and after, and takes effect on the next request', async () => {
    const { token, id } = await tokenWithLimit(0.01, 1);
    const ctx = { db: api.database.db, actor: admin };
    const responder: Actor = { type: 'person', id: 'responder@example.com', role: 'responder', teams: [] };
    await expect(
      setApiTokenRateLimit({ db: api.database.db, actor: responder }, { tokenId: id, ratePerSecond: 5, rateBurst: 5 }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    for (const bad of [
      { ratePerSecond: 0, rateBurst: 5 },
      { ratePerSecond: 200_000, rateBurst: 5 },
      { ratePerSecond: 5, rateBurst: 0 },
      { ratePerSecond: 5, rateBurst: 1.5 },
      { ratePerSecond: Number.NaN, rateBurst: 5 },
    ]) {
      const refusal = await setApiTokenRateLimit(ctx, { tokenId: id, ...bad }).catch((error: unknown) => error);
      expect(refusal, JSON.stringify(bad)).toBeInstanceOf(InvalidInputError);
    }
    expect(await setApiTokenRateLimit(ctx, { tokenId: id, ratePerSecond: 0.01, rateBurst: 1 })).toEqual({
      changed: false,
    });

    expect((await api.request('/api/v1/attempts', { token, body: anAttempt() })).status).toBe(201);
    expect((await api.request('/api/v1/attempts', { token, body: anAttempt() })).status).toBe(429);
    // Back to the deployment's defaults (null): the bucket refills at their rate from its next request.
    expect(await setApiTokenRateLimit(ctx, { tokenId: id, ratePerSecond: null, rateBurst: null })).toEqual({
      changed: true,
    });
    const [stored] = await api.database.db.select().from(apiTokens).where(eq(apiTokens.id, id));
    expect(stored).toMatchObject({ ratePerSecond: null, rateBurst: null });
    const records = await api.database.db.select().from(auditLog).where(eq(auditLog.action, 'api_token.rate_limit'));
    expect(records.filter((record) => record.targetId === String(id))).toEqual([
      expect.objectContaining({
        actorId: 'admin@example.com',
        before: { ratePerSecond: 0.01, rateBurst: 1 },
        after: { ratePerSecond: null, rateBurst: null },
      }),
    ]);
  });
});
