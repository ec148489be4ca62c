import { eq } from 'drizzle-orm';
import type { z } from 'zod';
import { apiTokens } from '../../db/schema';
import { writeAudit } from '../audit/audit-log';
import { authorize } from './authorization';
import type { CoreContext } from '../kernel/context';
import { NotFoundError } from '@holdfast/protocol/errors';
import { parseInput } from '@holdfast/protocol/validation';
import { noteApiTokenChanged } from './api-token-changes';
import { setApiTokenRateLimitInput } from './api-tokens-input';

/** A token bucket: refilled at `perSecond` requests a second, holding at most `burst`. */
export interface RateLimit {
  perSecond: number;
  burst: number;
}

export type BucketDecision = { granted: true } | { granted: false; retryAfterSeconds: number };

/** The token's own limit where it sets one, the deployment's default where it does not. */
export function rateLimitOf(
  token: { ratePerSecond: number | null; rateBurst: number | null },
  defaults: RateLimit,
): RateLimit {
  return { perSecond: token.ratePerSecond ?? defaults.perSecond, burst: token.rateBurst ?? defaults.burst };
}

/**
 * Sets a token's rate and burst (null: back to the deployment's default);
 * admins only, audit-logged with the limits before and after. Takes effect on
 * the token's next request to this process, and within TOKEN_CACHE_TTL_MS on
 * other instances (their token caches); a smaller burst caps the bucket at once.
 */
export async function setApiTokenRateLimit(
  ctx: CoreContext,
  input: z.input<typeof setApiTokenRateLimitInput>,
): Promise<{ changed: boolean }> {
  const actor = authorize(ctx, 'api_token.manage');
  const { tokenId, ratePerSecond, rateBurst } = parseInput(setApiTokenRateLimitInput, input);
  const set = await ctx.db.transaction(async (tx) => {
    const [before] = await tx
      .select({ ratePerSecond: apiTokens.ratePerSecond, rateBurst: apiTokens.rateBurst })
      .from(apiTokens)
      .where(eq(apiTokens.id, tokenId))
      .for('update');
    if (!before) throw new NotFoundError(`No API token ${tokenId}`);
    if (before.ratePerSecond === ratePerSecond && before.rateBurst === rateBurst) return { changed: false };
    await tx.update(apiTokens).set({ ratePerSecond, rateBurst }).where(eq(apiTokens.id, tokenId));
    await writeAudit(tx, actor, {
      action: 'api_token.rate_limit',
      targetType: 'api_token',
      targetId: String(tokenId),
      reason: 'rate limit set',
      before,
      after: { ratePerSecond, rateBurst },
    });
    return { changed: true };
  });
  if (set.changed) noteApiTokenChanged();
  return set;
}
