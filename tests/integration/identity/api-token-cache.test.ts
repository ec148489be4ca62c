import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  ApiTokenCache,
  createApiToken,
  revokeApiToken,
  setApiTokenRateLimit,
  TOKEN_CACHE_TTL_MS,
} from '../../../packages/engine/src/core';
import { noteApiTokenChanged } from '../../../packages/engine/src/core/identity/api-token-changes';
import { apiTokens } from '../../../packages/engine/src/db/schema';
import { useApi } from '../../support/api-harness';
import { aPerson } from '../../support/actors';
import { anAttemptBody } from '../../support/attempt-factory';

/**
 * The agent API keeps a valid token for a few seconds instead of selecting it on every request. A revoke or a
 * new limit made in this process is honoured by the next request; one made by another instance on the
 * database (here: the row changed behind the cache's back) within TOKEN_CACHE_TTL_MS. The cache's clock is an
 * input: time passes by moving it, never by sleeping.
 */
const api = useApi();
const admin = aPerson('admin', 'admin@example.com');
const ctx = () => ({ db: api.database.db, actor: admin });

async function newToken() {
  const { token, record } = await createApiToken(ctx(), { name: `cached-${randomUUID()}`, scopes: ['ingest'] });
  return { bearer: `Bearer ${token}`, token, id: record.id };
}

/** A cache on a clock the test moves. */
function cacheAt(start = 1_000) {
  const clock = { ms: start };
  return { cache: new ApiTokenCache({ now: () => clock.ms }), clock };
}

/** Revokes the token as another instance would: the row changes, this process hears nothing of it. */
async function revokeElsewhere(id: number) {
  await api.database.db.update(apiTokens).set({ revokedAt: sql`now()` }).where(eq(apiTokens.id, id));
}

describe('the token cache', () => {
  it('honours a revoke made by another instance within its bound, and not a moment later', async () => {
    expect(TOKEN_CACHE_TTL_MS).toBeLessThanOrEqual(5_000);
    const { cache, clock } = cacheAt();
    const { bearer, id } = await newToken();
    expect((await cache.authenticate(api.database.db, bearer))?.tokenId).toBe(id);

    await revokeElsewhere(id);
    // Inside the bound the entry stands in for the row (that is the cache's whole point) ...
    clock.ms += TOKEN_CACHE_TTL_MS - 1;
    expect((await cache.authenticate(api.database.db, bearer))?.tokenId).toBe(id);
    // ... and at the bound the row is read again: refused.
    clock.ms += 1;
    expect(await cache.authenticate(api.database.db, bearer)).toBeUndefined();
  });

  it('honours a revoke made in this process at once', async () => {
    const { cache, clock } = cacheAt();
    const { bearer, id } = await newToken();
    expect(await cache.authenticate(api.database.db, bearer)).toBeDefined();
    await revokeApiToken(ctx(), { tokenId: id });
    clock.ms += 1;
    expect(await cache.authenticate(api.database.db, bearer)).toBeUndefined();
  });

  it('sees a new rate limit set in this process at once', async () => {
    const { cache } = cacheAt();
    const { bearer, id } = await newToken();
    expect(await cache.authenticate(api.database.db, bearer)).toMatchObject({ ratePerSecond: null, rateBurst: null });
    await setApiTokenRateLimit(ctx(), { tokenId: id, ratePerSecond: 3, rateBurst: 9 });
    expect(await cache.authenticate(api.database.db, bearer)).toMatchObject({ ratePerSecond: 3, rateBurst: 9 });
  });

  it('keeps nothing a change overtook while the token was being read', async () => {
    const { cache } = cacheAt();
    const { bearer, id } = await newToken();
    const reading = cache.authenticate(api.database.db, bearer);
    // A revoke in this process commits while the select is on its way: its answer may predate the revoke.
    noteApiTokenChanged();
    expect((await reading)?.tokenId).toBe(id);
    await revokeElsewhere(id);
    expect(await cache.authenticate(api.database.db, bearer)).toBeUndefined();
  });

  it('keeps only valid tokens: an unknown or revoked one asks the database every time', async () => {
    const { cache } = cacheAt();
    const { bearer, id } = await newToken();
    await revokeElsewhere(id);
    expect(await cache.authenticate(api.database.db, bearer)).toBeUndefined();
    await api.database.db.update(apiTokens).set({ revokedAt: null }).where(eq(apiTokens.id, id));
    expect((await cache.authenticate(api.database.db, bearer))?.tokenId).toBe(id);
    for (const header of [null, 'Basic abc', 'Bearer hf_not_a_real_token_at_all'])
      expect(await cache.authenticate(api.database.db, header)).toBeUndefined();
  });

  it('hands out an actor no request can change for the next one', async () => {
    const { cache } = cacheAt();
    const { bearer } = await newToken();
    const token = await cache.authenticate(api.database.db, bearer);
    expect(Object.isFrozen(token?.actor)).toBe(true);
    expect(Object.isFrozen(token?.actor.scopes)).toBe(true);
  });
});

describe('the agent API with the cache', () => {
  it('refuses a token revoked in this process from the next request on', async () => {
    const { token, id } = await newToken();
    const attempt = () => anAttemptBody({ taskId: `cached-${randomUUID()}` });
    expect((await api.request('/api/v1/attempts', { token, body: attempt() })).status).toBe(201);
    expect((await api.request('/api/v1/attempts', { token, body: attempt() })).status).toBe(201);
    await revokeApiToken(ctx(), { tokenId: id });
    const refused = await api.request('/api/v1/attempts', { token, body: attempt() });
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});
