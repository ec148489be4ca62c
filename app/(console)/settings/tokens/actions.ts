'use server';

import { createApiToken, revokeApiToken, setApiTokenRateLimit } from '@holdfast/engine/core';
import { field, runAction, type ActionResult } from '@/lib/server/action';

/**
 * A number typed in a form: blank means "the deployment's default" (null); anything else goes to the library
 * as a number (NaN for "fast", which its schema refuses naming the field).
 */
function numberOrDefault(text: string): number | null {
  const trimmed = text.trim().replaceAll(',', '');
  return trimmed === '' ? null : Number(trimmed);
}

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
        ratePerSecond: numberOrDefault(field(formData, 'ratePerSecond')),
        rateBurst: numberOrDefault(field(formData, 'rateBurst')),
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

/** Sets a token's rate limit (admins only, validated and audit-logged by the library); blank fields: the defaults. */
export async function setTokenRateLimitAction(
  _previous: ActionResult<{ changed: boolean }> | undefined,
  formData: FormData,
) {
  return runAction(
    (ctx) =>
      setApiTokenRateLimit(ctx, {
        tokenId: Number(field(formData, 'tokenId')),
        ratePerSecond: numberOrDefault(field(formData, 'ratePerSecond')),
        rateBurst: numberOrDefault(field(formData, 'rateBurst')),
      }),
    ['/settings/tokens'],
  );
}
