import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authenticateApiToken, createApiToken, listApiTokens, revokeApiToken } from '../../../packages/engine/src/core';
import { can } from '../../../packages/engine/src/core/identity/authorization';
import { apiTokens, auditLog } from '../../../packages/engine/src/db/schema';
import { useTestDatabase } from '../../support/test-database';
import { admin } from '../../support/actors';

const database = useTestDatabase();
const ctx = () => ({ db: database.db, actor: admin });

describe('API tokens', () => {
  it('stores only a hash: the secret appears in no column', async () => {
    const { token, record } = await createApiToken(ctx(), { name: 'outreach agent', scopes: ['ingest'] });
    expect(token).toMatch(/^hf_[A-Za-z0-9_-]{32}$/);
    const [row] = await database.sql`select * from api_tokens where id = ${record.id}`;
    expect(JSON.stringify(row)).not.toContain(token.slice(10));
    expect(row?.token_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('authenticates a Bearer token as an agent with its scopes, and nothing else', async () => {
    const { token, record } = await createApiToken(ctx(), { name: 'reader', scopes: ['read'] });
    const agent = await authenticateApiToken(database.db, `Bearer ${token}`);
    expect(agent).toEqual({ type: 'agent', id: `token:${record.id}:reader`, scopes: ['read'] });
    for (const header of [null, token, `Basic ${token}`, `Bearer ${token}x`, 'Bearer hf_unknown_token_value']) {
      expect(await authenticateApiToken(database.db, header)).toBeUndefined();
    }
    const [used] = await database.db.select().from(apiTokens).where(eq(apiTokens.id, record.id));
    expect(used?.lastUsedAt).toBeInstanceOf(Date);
  });

  it('refuses a revoked token, and revoking twice changes nothing', async () => {
    const { token, record } = await createApiToken(ctx(), { name: 'old agent', scopes: ['ingest', 'read'] });
    expect(await revokeApiToken(ctx(), { tokenId: record.id })).toEqual({ changed: true });
    expect(await revokeApiToken(ctx(), { tokenId: record.id })).toEqual({ changed: false });
    expect(await authenticateApiToken(database.db, `Bearer ${token}`)).toBeUndefined();
  });

  it('lets a read-scoped token read but not write', async () => {
    const { token } = await createApiToken(ctx(), { name: 'dashboards', scopes: ['read'] });
    const agent = await authenticateApiToken(database.db, `Bearer ${token}`);
    if (!agent) throw new Error('expected the token to authenticate');
    expect(can(agent, 'console.read')).toBe(true);
    expect(can(agent, 'attempt.record')).toBe(false);
    expect(can(agent, 'hold.open')).toBe(false);
  });

  it('refuses bad input: no scope, an unknown scope, a blank name', async () => {
    await expect(createApiToken(ctx(), { name: 'x', scopes: [] })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(createApiToken(ctx(), { name: 'x', scopes: ['admin' as 'read'] })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(createApiToken(ctx(), { name: ' ', scopes: ['read'] })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });

  it('keeps the agents and queues a token is limited to, lists them, and puts them on the agent it authenticates', async () => {
    const { token, record } = await createApiToken(ctx(), {
      name: 'outreach worker',
      scopes: ['ingest'],
      allowedAgents: ['outreach', ' payments ', 'outreach'],
      allowedQueues: ['outreach'],
    });
    expect(record).toMatchObject({ allowedAgents: ['outreach', 'payments'], allowedQueues: ['outreach'] });
    expect(await authenticateApiToken(database.db, `Bearer ${token}`)).toEqual({
      type: 'agent',
      id: `token:${record.id}:outreach worker`,
      scopes: ['ingest'],
      allowedAgents: ['outreach', 'payments'],
      allowedQueues: ['outreach'],
    });
    const listed = (await listApiTokens(database.db)).find((row) => row.id === record.id);
    expect(listed).toMatchObject({ allowedAgents: ['outreach', 'payments'], allowedQueues: ['outreach'] });
    const [audit] = await database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.targetId, String(record.id)));
    expect(audit?.after).toMatchObject({ allowedAgents: ['outreach', 'payments'], allowedQueues: ['outreach'] });
  });

  it('treats absent or empty limits as no limit, and refuses blank or NUL names', async () => {
    const { token, record } = await createApiToken(ctx(), {
      name: 'any agent',
      scopes: ['ingest'],
      allowedAgents: [],
      allowedQueues: undefined,
    });
    expect(record).toMatchObject({ allowedAgents: null, allowedQueues: null });
    const agent = await authenticateApiToken(database.db, `Bearer ${token}`);
    expect(agent).not.toHaveProperty('allowedAgents');
    expect(agent).not.toHaveProperty('allowedQueues');
    await expect(createApiToken(ctx(), { name: 'x', scopes: ['ingest'], allowedAgents: [' '] })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(
      createApiToken(ctx(), { name: 'x', scopes: ['ingest'], allowedQueues: ['a\u0000b'] }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});
