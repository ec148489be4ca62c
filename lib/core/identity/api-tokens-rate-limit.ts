import { eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Executor } from '../../db/client';
import { apiTokens } from '../../db/schema';
import { writeAudit } from '../audit/audit-log';
import { authorize } from './authorization';
import type { CoreContext } from '../kernel/context';
import { NotFoundError } from '../kernel/errors';
import { parseInput } from '../kernel/validation';
import { noteApiTokenChanged } from './api-token-changes';
import { setApiTokenRateLimitInput } from './api-tokens-input';

/** A token bucket: refilled at `perSecond` requests a second, holding at most `burst`. */
export interface RateLimit {
  perSecond: number;
  burst: number;
}

export type BucketDecision = { granted: true } | { granted: false; retryAfterSeconds: number };

/**
 * Takes one request from the token's bucket, in one statement: the row is
 * created full (less this request) on the token's first request, else refilled
 * for the time since its last request by the database's clock and, if a whole
 * request is left, decremented. The row lock makes it atomic, so every instance
 * on the database shares one bucket per token, and concurrent requests cannot
 * both take its last token. A clock that steps back refills nothing.
 *
 * `at` stands in for the database's clock (tests); the server passes none.
 * Refused, the answer says when one request will be back (at least 1 s).
 */
export async function takeRequestToken(
  db: Executor,
  tokenId: number,
  limit: RateLimit,
  at?: Date,
): Promise<BucketDecision> {
  const now = at ? sql`${at.toISOString()}::timestamptz` : sql`now()`;
  const refilled = sql`least(${limit.burst}::float8, bucket.tokens + ${limit.perSecond}::float8 * greatest(0, extract(epoch from ${now} - bucket.refilled_at)))`;
  const [row] = await db.execute<{ granted: boolean; tokens: number }>(sql`
    insert into api_token_buckets as bucket (token_id, tokens, refilled_at, granted)
    values (${tokenId}, ${limit.burst - 1}::float8, ${now}, true)
    on conflict (token_id) do update set
      tokens = case when ${refilled} >= 1 then ${refilled} - 1 else ${refilled} end,
      refilled_at = greatest(bucket.refilled_at, ${now}),
      granted = ${refilled} >= 1
    returning granted, tokens`);
  if (!row) throw new Error('takeRequestToken: the bucket statement returned no row');
  if (row.granted) return { granted: true };
  return { granted: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - Number(row.tokens)) / limit.perSecond)) };
}

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
