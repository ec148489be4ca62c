/**
 * A count of the changes this process made to API tokens (a revoke, a new rate limit). Every cache of
 * authenticated tokens (api-token-cache.ts) remembers the count its entries were read under and drops
 * them when it moves on, so a change made here is honoured by the next request at once; other instances
 * on the database honour it when their entries expire (TOKEN_CACHE_TTL_MS).
 *
 * Kept on globalThis: Next may load this module more than once in one server (a route's bundle and a
 * server action's), and a revoke from the console must reach the cache the agent routes read.
 */
const holder = globalThis as typeof globalThis & { holdfastApiTokenChanges?: { count: number } };
const changes = (holder.holdfastApiTokenChanges ??= { count: 0 });

/** Called after a change to any token has committed. */
export function noteApiTokenChanged(): void {
  changes.count += 1;
}

/** The number of changes so far: an entry read under an older number is stale. */
export function apiTokenChangeCount(): number {
  return changes.count;
}
