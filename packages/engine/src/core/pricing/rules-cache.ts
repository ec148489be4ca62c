import type { Executor } from '../../db/client';

/** How long a read of admin-edited rules serves: an edit reaches another instance within this. */
export const RULES_CACHE_MS = 5_000;

/**
 * A read of small, rarely edited tables (price overrides, error class rules), kept per database for
 * a few seconds so that a hot path (every export batch, every reported attempt) does not read them
 * each time. The instance where an admin edits forgets its copy at once.
 */
export function cachedPerDatabase<T>(read: (db: Executor) => Promise<T>) {
  const cache = new WeakMap<object, { value: Promise<T>; expiresAt: number }>();
  return {
    get(db: Executor, now = Date.now()): Promise<T> {
      const hit = cache.get(db);
      if (hit && hit.expiresAt > now) return hit.value;
      const value = read(db);
      cache.set(db, { value, expiresAt: now + RULES_CACHE_MS });
      // A failed read is not kept: the next call tries again.
      value.catch(() => cache.delete(db));
      return value;
    },
    forget(db: Executor): void {
      cache.delete(db);
    },
  };
}
