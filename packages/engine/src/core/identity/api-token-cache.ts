import type { Executor } from '../../db/client';
import { apiTokenChangeCount } from './api-token-changes';
import { type AuthenticatedToken, authenticateTokenHash, bearerTokenHash } from './api-tokens';

/**
 * How long an authenticated token is believed without asking the database again: the bound on how late
 * another instance honours a revoke or a new limit. This process honours its own changes at once.
 */
export const TOKEN_CACHE_TTL_MS = 5_000;
/** Tokens kept at most; past it the oldest entry goes. A deployment has far fewer live tokens. */
const MAX_ENTRIES = 10_000;

interface Entry {
  token: AuthenticatedToken;
  expiresAt: number;
  /** apiTokenChangeCount() when the token was read: any later change in this process makes it stale. */
  readUnder: number;
}

/** Wraps the database work a call does when it must ask the database (the server's request deadline). */
export type DatabaseGuard = <T>(work: Promise<T>) => Promise<T>;
const unguarded: DatabaseGuard = (work) => work;

export interface ApiTokenCacheOptions {
  ttlMs?: number;
  /** Milliseconds on a clock that never steps back; tests pass their own. */
  now?: () => number;
  maxEntries?: number;
}

/**
 * The agent API's token check without a select per request: a valid token is kept for TOKEN_CACHE_TTL_MS
 * under its hash (never its secret). Only valid tokens are kept, so an unknown or revoked token asks the
 * database every time, and a flood of made-up tokens cannot fill the cache.
 */
export class ApiTokenCache {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly maxEntries: number;

  constructor(options: ApiTokenCacheOptions = {}) {
    this.ttlMs = options.ttlMs ?? TOKEN_CACHE_TTL_MS;
    this.now = options.now ?? (() => performance.now());
    this.maxEntries = options.maxEntries ?? MAX_ENTRIES;
  }

  /** authenticateApiTokenWithLimits, answered from the cache while its entry is fresh. */
  async authenticate(
    db: Executor,
    authorization: string | null,
    guard: DatabaseGuard = unguarded,
  ): Promise<AuthenticatedToken | undefined> {
    const tokenHash = bearerTokenHash(authorization);
    if (!tokenHash) return undefined;
    const changes = apiTokenChangeCount();
    const cached = this.entries.get(tokenHash);
    if (cached && cached.readUnder === changes && cached.expiresAt > this.now()) return cached.token;
    if (cached) this.entries.delete(tokenHash);

    const token = await guard(authenticateTokenHash(db, tokenHash));
    // A revoke that committed while the select was on its way may not be in its answer: keep nothing then.
    if (token && apiTokenChangeCount() === changes) this.remember(tokenHash, token, changes);
    return token;
  }

  private remember(tokenHash: string, token: AuthenticatedToken, readUnder: number): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(tokenHash, { token: frozen(token), expiresAt: this.now() + this.ttlMs, readUnder });
  }
}

/** One entry serves many requests at once: none of them may change what the next one is authorized as. */
function frozen(token: AuthenticatedToken): AuthenticatedToken {
  const { actor } = token;
  Object.freeze(actor.scopes);
  if (actor.allowedAgents) Object.freeze(actor.allowedAgents);
  if (actor.allowedQueues) Object.freeze(actor.allowedQueues);
  Object.freeze(actor);
  return Object.freeze(token);
}
