import { createHash, randomBytes } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Executor } from '../../db/client';
import { apiTokens, type ApiToken } from '../../db/schema';
import { writeAudit } from '../audit/audit-log';
import { authorize } from './authorization';
import { actorLabel, type Actor, type CoreContext } from '../kernel/context';
import { NotFoundError } from '@holdfast/protocol/errors';
import { parseInput } from '@holdfast/protocol/validation';
import { noteApiTokenChanged } from './api-token-changes';
import { createApiTokenInput, revokeApiTokenInput } from './api-tokens-input';

export { createApiTokenInput, setApiTokenRateLimitInput } from './api-tokens-input';
export {
  type BucketDecision,
  type RateLimit,
  rateLimitOf,
  setApiTokenRateLimit,
} from './api-tokens-rate-limit';
export { takeRequestToken } from './api-tokens-rate-batch';

const TOKEN_PREFIX = 'hf_';

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Creates a token for an agent; admins only, audit-logged. The secret is in
 * the return value and nowhere else: only its hash is stored.
 */
export async function createApiToken(
  ctx: CoreContext,
  input: z.input<typeof createApiTokenInput>,
): Promise<{ token: string; record: ApiToken }> {
  const actor = authorize(ctx, 'api_token.manage');
  const request = parseInput(createApiTokenInput, input);
  const token = `${TOKEN_PREFIX}${randomBytes(24).toString('base64url')}`;
  return ctx.db.transaction(async (tx) => {
    const [record] = await tx
      .insert(apiTokens)
      .values({
        name: request.name,
        tokenHash: hashToken(token),
        prefix: token.slice(0, 10),
        scopes: [...new Set(request.scopes)],
        allowedAgents: request.allowedAgents ?? null,
        allowedQueues: request.allowedQueues ?? null,
        ratePerSecond: request.ratePerSecond ?? null,
        rateBurst: request.rateBurst ?? null,
        createdBy: actorLabel(actor),
      })
      .returning();
    if (!record) throw new Error('createApiToken: insert returned no row');
    await writeAudit(tx, actor, {
      action: 'api_token.create',
      targetType: 'api_token',
      targetId: String(record.id),
      reason: `token for ${record.name}`,
      after: {
        name: record.name,
        scopes: record.scopes,
        prefix: record.prefix,
        allowedAgents: record.allowedAgents,
        allowedQueues: record.allowedQueues,
        ratePerSecond: record.ratePerSecond,
        rateBurst: record.rateBurst,
      },
    });
    return { token, record };
  });
}

/**
 * Revokes a token; revoking it again changes nothing. Admins only, audit-logged. This process refuses the
 * token from its next request; another instance on the database within TOKEN_CACHE_TTL_MS (its cache).
 */
export async function revokeApiToken(
  ctx: CoreContext,
  input: z.input<typeof revokeApiTokenInput>,
): Promise<{ changed: boolean }> {
  const actor = authorize(ctx, 'api_token.manage');
  const { tokenId } = parseInput(revokeApiTokenInput, input);
  const revoked = await ctx.db.transaction(async (tx) => {
    const revoked = await tx
      .update(apiTokens)
      .set({ revokedAt: sql`now()`, revokedBy: actorLabel(actor) })
      .where(and(eq(apiTokens.id, tokenId), isNull(apiTokens.revokedAt)))
      .returning({ id: apiTokens.id });
    if (revoked.length === 0) {
      const [existing] = await tx.select({ id: apiTokens.id }).from(apiTokens).where(eq(apiTokens.id, tokenId));
      if (!existing) throw new NotFoundError(`No API token ${tokenId}`);
      return { changed: false };
    }
    await writeAudit(tx, actor, {
      action: 'api_token.revoke',
      targetType: 'api_token',
      targetId: String(tokenId),
      reason: 'revoked',
      after: { revoked: true },
    });
    return { changed: true };
  });
  // After the commit: a request that read the token before it must not keep it in a cache.
  if (revoked.changed) noteApiTokenChanged();
  return revoked;
}

/** The agent behind a valid token, with what the API's rate limit needs: the token's id and its own limits. */
export interface AuthenticatedToken {
  actor: Extract<Actor, { type: 'agent' }>;
  tokenId: number;
  /** Null where the token sets none (the deployment's default applies: rateLimitOf). */
  ratePerSecond: number | null;
  rateBurst: number | null;
}

/**
 * The agent behind an `Authorization: Bearer <token>` header, or undefined for
 * anything else (no header, another scheme, unknown or revoked token) — the
 * caller answers 401 without saying which.
 */
export async function authenticateApiToken(
  db: Executor,
  authorization: string | null,
): Promise<Extract<Actor, { type: 'agent' }> | undefined> {
  return (await authenticateApiTokenWithLimits(db, authorization))?.actor;
}

/** authenticateApiToken, with the token's id and rate limit besides its agent (the agent API's gate). */
export async function authenticateApiTokenWithLimits(
  db: Executor,
  authorization: string | null,
): Promise<AuthenticatedToken | undefined> {
  const tokenHash = bearerTokenHash(authorization);
  return tokenHash ? authenticateTokenHash(db, tokenHash) : undefined;
}

/** The stored hash of an `Authorization: Bearer <token>` header's token, or undefined when the header is no such thing. */
export function bearerTokenHash(authorization: string | null): string | undefined {
  const match = /^Bearer ([A-Za-z0-9_-]{10,200})$/.exec(authorization ?? '');
  return match?.[1] ? hashToken(match[1]) : undefined;
}

/** The token stored under this hash and not revoked, as the agent API sees it; undefined if there is none. */
export async function authenticateTokenHash(db: Executor, tokenHash: string): Promise<AuthenticatedToken | undefined> {
  const [token] = await db
    .select()
    .from(apiTokens)
    .where(and(eq(apiTokens.tokenHash, tokenHash), isNull(apiTokens.revokedAt)));
  if (!token) return undefined;
  // Last use is kept to the minute: a busy agent's requests skip the write (and its round
  // trip) entirely, and the condition keeps concurrent requests from writing it twice.
  if (!token.lastUsedAt || Date.now() - token.lastUsedAt.getTime() >= 60_000) {
    await db
      .update(apiTokens)
      .set({ lastUsedAt: sql`now()` })
      .where(
        and(
          eq(apiTokens.id, token.id),
          sql`(${apiTokens.lastUsedAt} is null or ${apiTokens.lastUsedAt} < now() - interval '1 minute')`,
        ),
      );
  }
  // The limits travel with the actor, so every library operation enforces them (see enforceTokenLimits).
  return {
    actor: {
      type: 'agent',
      id: `token:${token.id}:${token.name}`,
      scopes: token.scopes,
      ...(token.allowedAgents ? { allowedAgents: token.allowedAgents } : {}),
      ...(token.allowedQueues ? { allowedQueues: token.allowedQueues } : {}),
    },
    tokenId: token.id,
    ratePerSecond: token.ratePerSecond,
    rateBurst: token.rateBurst,
  };
}

/** Tokens for the settings page, newest first; never the secret or its hash. */
export async function listApiTokens(db: Executor) {
  return db
    .select({
      id: apiTokens.id,
      name: apiTokens.name,
      prefix: apiTokens.prefix,
      scopes: apiTokens.scopes,
      allowedAgents: apiTokens.allowedAgents,
      allowedQueues: apiTokens.allowedQueues,
      ratePerSecond: apiTokens.ratePerSecond,
      rateBurst: apiTokens.rateBurst,
      createdBy: apiTokens.createdBy,
      createdAt: apiTokens.createdAt,
      lastUsedAt: apiTokens.lastUsedAt,
      revokedAt: apiTokens.revokedAt,
    })
    .from(apiTokens)
    .orderBy(sql`${apiTokens.id} desc`);
}
