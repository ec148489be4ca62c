import { randomUUID } from 'node:crypto';
import { createApiToken } from '../../packages/engine/src/core';
import type { Database } from '../../packages/engine/src/db/client';
import { aPerson } from './actors';

type TokenFields = Partial<Parameters<typeof createApiToken>[1]>;

/** An API token as an admin issues it (ingest, unless the test names other scopes or limits): its secret and id. */
export async function issueToken(db: Database, fields: TokenFields = {}): Promise<{ token: string; id: number }> {
  const { token, record } = await createApiToken(
    { db, actor: aPerson('admin', 'ada@example.com') },
    { name: `token-${randomUUID().slice(0, 8)}`, scopes: ['ingest'], ...fields },
  );
  return { token, id: record.id };
}
