import type { Executor } from '../../db/client';
import type { DatabaseGuard } from './api-token-cache';
import type { BucketDecision, RateLimit } from './api-tokens-rate-limit';
import { takeRequestTokens } from './api-tokens-rate-batch';

/** How long requests taken from the shared bucket may wait in this process to be spent; after it they are dropped. */
export const GRANT_LEASE_MS = 1_000;
/** The most requests one reservation takes. */
export const MAX_GRANT_BATCH = 64;

interface Lease {
  left: number;
  expiresAt: number;
  /** The size of the next reservation: doubled when a lease runs out while fresh, halved when one expires unspent. */
  nextBatch: number;
  /** The reservation under way, which every request arriving meanwhile waits for. */
  reserving?: Promise<BucketDecision>;
}

export interface RequestGrantsOptions {
  leaseMs?: number;
  /** Milliseconds on a clock that never steps back; tests pass their own. */
  now?: () => number;
  /** Stands in for the database's clock in the shared bucket's refill (tests); the server passes none. */
  databaseNow?: () => Date;
}

/**
 * A token's rate limit without a statement per request. The bucket stays one row per token in PostgreSQL,
 * shared by every instance (ADR 0005); this process takes requests from it in batches and spends them
 * locally, one request at a time.
 *
 * What stays exact: every request granted anywhere was taken from the shared row under its lock, so the
 * instances together never grant more than the bucket holds, and two requests never spend the same grant.
 * What moves: a grant may be spent up to GRANT_LEASE_MS after it left the row, so in any one window an
 * instance can grant up to one batch more than an exact bucket would have in that window; and grants an
 * instance took but did not spend are dropped when their lease ends, so other instances may be refused up to
 * one batch earlier. A batch is never more than an eighth of the token's rate or burst (so a small limit
 * stays exact: its batch is 1, a statement per request as before) nor more than MAX_GRANT_BATCH, and
 * starts at 1, growing only while the token's requests keep spending whole batches.
 */
export class RequestGrants {
  /** Per database handle, then per token: a token's id names it in one database only (tests open many). */
  private readonly leasesByDatabase = new WeakMap<Executor, Map<number, Lease>>();
  private readonly leaseMs: number;
  private readonly now: () => number;
  private readonly databaseNow: (() => Date) | undefined;

  constructor(options: RequestGrantsOptions = {}) {
    this.leaseMs = options.leaseMs ?? GRANT_LEASE_MS;
    this.now = options.now ?? (() => performance.now());
    this.databaseNow = options.databaseNow;
  }

  /** Requests this process holds for the token and has not spent yet (fresh or not). */
  heldFor(db: Executor, tokenId: number): number {
    return this.leasesByDatabase.get(db)?.get(tokenId)?.left ?? 0;
  }

  /** One request for the token: granted from this process's lease, else from a new reservation on the shared row. */
  async take(
    db: Executor,
    tokenId: number,
    limit: RateLimit,
    guard: DatabaseGuard = (work) => work,
  ): Promise<BucketDecision> {
    let leases = this.leasesByDatabase.get(db);
    if (!leases) this.leasesByDatabase.set(db, (leases = new Map()));
    let lease = leases.get(tokenId);
    if (!lease) leases.set(tokenId, (lease = { left: 0, expiresAt: 0, nextBatch: 1 }));
    for (;;) {
      if (lease.left > 0) {
        if (lease.expiresAt > this.now()) {
          lease.left -= 1;
          return { granted: true };
        }
        // Grants left unspent for a whole lease: this token asks for fewer than it took.
        lease.left = 0;
        lease.nextBatch = Math.max(1, Math.floor(lease.nextBatch / 2));
      }
      if (lease.reserving) {
        await lease.reserving;
        continue;
      }
      const reserving = this.reserve(db, tokenId, limit, lease, guard);
      lease.reserving = reserving;
      try {
        return await reserving;
      } finally {
        lease.reserving = undefined;
      }
    }
  }

  /** Takes a batch from the shared row: one request of it for the caller, the rest for the lease. */
  private async reserve(
    db: Executor,
    tokenId: number,
    limit: RateLimit,
    lease: Lease,
    guard: DatabaseGuard,
  ): Promise<BucketDecision> {
    // The last lease was spent before it expired: this token asks for more than it took, so take more.
    if (lease.expiresAt > this.now()) lease.nextBatch *= 2;
    lease.nextBatch = Math.min(lease.nextBatch, batchCap(limit));
    const reservation = await guard(takeRequestTokens(db, tokenId, limit, lease.nextBatch, this.databaseNow?.()));
    if (reservation.taken === 0) return { granted: false, retryAfterSeconds: reservation.retryAfterSeconds };
    lease.left = reservation.taken - 1;
    lease.expiresAt = this.now() + this.leaseMs;
    return { granted: true };
  }
}

/** The largest batch for a limit: an eighth of its rate or burst, whichever is smaller, at least 1. */
export function batchCap(limit: RateLimit): number {
  return Math.max(1, Math.min(MAX_GRANT_BATCH, Math.floor(Math.min(limit.perSecond, limit.burst) / 8)));
}
