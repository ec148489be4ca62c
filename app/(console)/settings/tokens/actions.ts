'use server';

import { createApiToken, revokeApiToken } from '@/lib/core';
import { field, runAction, type ActionResult } from '@/lib/server/action';

/** "outreach, payments" (commas or spaces) as a list; blank means no limit. */
function namesIn(text: string): string[] {
  return text.split(/[\s,]+/).filter((name) => name.length > 0);
}

export async function createTokenAction(
  _previous: ActionResult<{ id: number; token: string; name: string }> | undefined,
  formData: FormData,
) {
  return runAction(
    async (ctx) => {
      const scopes = formData.getAll('scopes').filter((scope): scope is string => typeof scope === 'string');
      const { token, record } = await createApiToken(ctx, {
        name: field(formData, 'name'),
        scopes: scopes as ('ingest' | 'read')[],
        allowedAgents: namesIn(field(formData, 'allowedAgents')),
        allowedQueues: namesIn(field(formData, 'allowedQueues')),
      });
      return { id: record.id, token, name: record.name };
    },
    ['/settings/tokens'],
  );
}

/** Revokes a token (admins only; the library checks); a second revoke answers changed: false. */
export async function revokeTokenAction(tokenId: number) {
  return runAction((ctx) => revokeApiToken(ctx, { tokenId }), ['/settings/tokens']);
}
