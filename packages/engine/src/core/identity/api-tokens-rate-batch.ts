import { type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import type { BucketDecision, RateLimit } from './api-tokens-rate-limit';

/** What one reservation took from a token's shared bucket: `taken` requests (0: refused, back in retryAfterSeconds). */
export interface Reservation {
  taken: number;
  retryAfterSeconds: number;
}

/**
 * Takes up to `wanted` requests at once from the token's shared bucket (one row per token), as
 * many whole requests as it holds: refilled by the time since its last change, then decremented, under the
 * row's lock, so the instances together never take more than the bucket holds. `at` stands in for the
 * database's clock (tests).
 *
 * One statement for a bucket that exists: the row is locked and its refill computed in a CTE, then updated
 * from it, so the count taken can be returned (an upsert's RETURNING sees only the new row). The token's first
 * request creates the row instead.
 */
export async function takeRequestTokens(
  db: Executor,
  tokenId: number,
  limit: RateLimit,
  wanted: number,
  at?: Date,
  /** All `wanted` or none: a charge for one piece of work (a trace batch's spans), never part of it. */
  whole = false,
): Promise<Reservation> {
  const now = at ? sql`${at.toISOString()}::timestamptz` : sql`now()`;
  const want = Math.max(1, Math.floor(wanted));
  const takenOf = (held: SQL) =>
    whole
      ? sql`(case when ${held} >= ${want}::float8 then ${want}::float8 else 0 end)`
      : sql`least(${want}::float8, floor(${held}))`;
  for (;;) {
    const [row] = await db.execute<{ taken: number; tokens: number }>(sql`
      with locked as (
        select token_id,
          least(${limit.burst}::float8,
            tokens + ${limit.perSecond}::float8 * greatest(0, extract(epoch from ${now} - refilled_at))) as refilled
        from api_token_buckets where token_id = ${tokenId}
        for update
      )
      update api_token_buckets as bucket set
        tokens = locked.refilled - ${takenOf(sql`locked.refilled`)},
        refilled_at = greatest(bucket.refilled_at, ${now}),
        granted = locked.refilled >= 1
      from locked
      where bucket.token_id = locked.token_id
      returning ${takenOf(sql`locked.refilled`)}::int as taken, bucket.tokens`);
    if (row) return reservationOf(Number(row.taken), Number(row.tokens), limit, whole ? want : 1);

    const first = whole ? (want <= limit.burst ? want : 0) : Math.min(want, Math.floor(limit.burst));
    const [created] = await db.execute<{ tokens: number }>(sql`
      insert into api_token_buckets (token_id, tokens, refilled_at, granted)
      values (${tokenId}, ${limit.burst - first}::float8, ${now}, true)
      on conflict (token_id) do nothing
      returning tokens`);
    if (created) return reservationOf(first, Number(created.tokens), limit, whole ? want : 1);
    // Another request created the row between the two statements: take from it as from any other.
  }
}

/** Refused, a reservation says when `needed` requests will be back (at least 1 s). */
function reservationOf(taken: number, tokensLeft: number, limit: RateLimit, needed: number): Reservation {
  return {
    taken,
    retryAfterSeconds: taken > 0 ? 0 : Math.max(1, Math.ceil((needed - tokensLeft) / limit.perSecond)),
  };
}

/**
 * Takes one request from the token's bucket (takeRequestTokens for one): the row is created full (less this
 * request) on the token's first request, else refilled for the time since its last request by the database's
 * clock and, if a whole request is left, decremented, under its lock, so every instance on the database shares
 * one bucket per token and concurrent requests cannot both take its last token. A clock that steps back refills
 * nothing. Refused, the answer says when one request will be back (at least 1 s). `at` stands in for the
 * database's clock (tests).
 */
export async function takeRequestToken(
  db: Executor,
  tokenId: number,
  limit: RateLimit,
  at?: Date,
): Promise<BucketDecision> {
  const reservation = await takeRequestTokens(db, tokenId, limit, 1, at);
  return reservation.taken > 0
    ? { granted: true }
    : { granted: false, retryAfterSeconds: reservation.retryAfterSeconds };
}
