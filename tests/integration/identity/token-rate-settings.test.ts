import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createApiToken } from '../../../packages/engine/src/core';
import { apiTokens } from '../../../packages/engine/src/db/schema';
import { useTestDatabase } from '../../support/test-database';
import { aPerson } from '../../support/actors';
import { useAppDatabase } from '../../support/app-database';

/** The token settings page's rate-limit form, through its server action as the page posts it. */
const admin = aPerson('admin', 'admin@example.com');
const viewer = { type: 'person', id: 'viewer@example.com', role: 'viewer', teams: [] } as const;
const session = vi.hoisted(() => ({ current: async (): Promise<unknown> => undefined }));
vi.mock('../../../lib/server/session', () => ({ getCurrentPerson: () => session.current() }));
vi.mock('../../../lib/server/read-source/read-console', () => ({ rememberOwnWrite: async () => {} }));
vi.mock('next/cache', () => ({ revalidatePath: () => {} }));

const database = useTestDatabase();
useAppDatabase(database);
beforeEach(() => {
  session.current = async () => admin;
});

const form = (fields: Record<string, string>) => {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.set(name, value);
  return data;
};
const actions = () => import('../../../app/(console)/settings/tokens/actions');
const stored = async (id: number) => (await database.db.select().from(apiTokens).where(eq(apiTokens.id, id)))[0];

describe("a token's rate limit in the console", () => {
  it('is set from the form, blank meaning the default, and refused naming the field for a bad number', async () => {
    const { setTokenRateLimitAction } = await actions();
    const { record } = await createApiToken(
      { db: database.db, actor: admin },
      { name: `form-${randomUUID()}`, scopes: ['ingest'] },
    );
    const tokenId = String(record.id);
    expect(
      await setTokenRateLimitAction(undefined, form({ tokenId, ratePerSecond: '12.5', rateBurst: '1,000' })),
    ).toEqual({ ok: true, data: { changed: true } });
    expect(await stored(record.id)).toMatchObject({ ratePerSecond: 12.5, rateBurst: 1_000 });

    const refused = await setTokenRateLimitAction(undefined, form({ tokenId, ratePerSecond: 'fast', rateBurst: '0' }));
    expect(refused).toMatchObject({
      ok: false,
      code: 'INVALID_INPUT',
      fieldErrors: { ratePerSecond: ['must be a number'], rateBurst: ['must be at least 1'] },
    });
    expect(await stored(record.id)).toMatchObject({ ratePerSecond: 12.5, rateBurst: 1_000 });

    expect(await setTokenRateLimitAction(undefined, form({ tokenId, ratePerSecond: '', rateBurst: ' ' }))).toEqual({
      ok: true,
      data: { changed: true },
    });
    expect(await stored(record.id)).toMatchObject({ ratePerSecond: null, rateBurst: null });
  });

  it('may not be set by a viewer', async () => {
    const { setTokenRateLimitAction } = await actions();
    const { record } = await createApiToken(
      { db: database.db, actor: admin },
      { name: `viewer-${randomUUID()}`, scopes: ['ingest'] },
    );
    session.current = async () => viewer;
    expect(
      await setTokenRateLimitAction(
        undefined,
        form({ tokenId: String(record.id), ratePerSecond: '1', rateBurst: '1' }),
      ),
    ).toMatchObject({ ok: false, code: 'FORBIDDEN' });
    expect(await stored(record.id)).toMatchObject({ ratePerSecond: null, rateBurst: null });
  });

  it('can be given when a token is created', async () => {
    const { createTokenAction } = await actions();
    const name = `created-${randomUUID()}`;
    const created = await createTokenAction(
      undefined,
      form({ name, scopes: 'ingest', allowedAgents: '', allowedQueues: '', ratePerSecond: '3', rateBurst: '30' }),
    );
    expect(created).toMatchObject({ ok: true, data: { name } });
    const [row] = await database.db.select().from(apiTokens).where(eq(apiTokens.name, name));
    expect(row).toMatchObject({ ratePerSecond: 3, rateBurst: 30 });
  });
});
