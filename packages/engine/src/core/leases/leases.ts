import { randomUUID } from 'node:crypto';
import { and, eq, isNull, lte, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { leases } from '../../db/schema';
import type { CoreContext } from '../kernel/context';
import { INSTANCE_NAME } from './instance-name';
import { parseInput } from '@holdfast/protocol/validation';
import { leaseInput } from './leases-input';

export type LeaseOutcome<T> = { ran: true; value: T } | { ran: false };

/**
 * Runs `pass` at most once per (job, bucket): two fires in one bucket do one
 * pass. Taking the lease is one INSERT that the primary key decides; a holder
 * that died before completing lets the next fire take over after the TTL.
 * A pass that stopped with work left (`finished` says so of its value, e.g. a
 * time budget ran out) hands the lease back uncompleted, so the next fire in the
 * bucket takes it at once and carries on instead of finding the bucket swept.
 */
export async function withLease<T>(
  ctx: CoreContext,
  input: z.input<typeof leaseInput>,
  pass: () => Promise<T>,
  options: { finished?: (value: T) => boolean } = {},
): Promise<LeaseOutcome<T>> {
  const { job, bucket, ttlMs } = parseInput(leaseInput, input);
  // Names this instance, so the leases table says which one swept a bucket; unique per pass all the same.
  const holder = `${INSTANCE_NAME}/${randomUUID().slice(0, 8)}`;
  const expiresAt = sql`now() + ${`${ttlMs} milliseconds`}::interval`;

  const [taken] = await ctx.db
    .insert(leases)
    .values({ job, bucket, holder, expiresAt })
    .onConflictDoUpdate({
      target: [leases.job, leases.bucket],
      set: { holder, acquiredAt: sql`now()`, expiresAt },
      // Only an abandoned pass is taken over; a completed or live one is left alone.
      setWhere: and(isNull(leases.completedAt), lte(leases.expiresAt, sql`now()`)),
    })
    .returning({ holder: leases.holder });
  if (taken?.holder !== holder) return { ran: false };

  const value = await pass();
  const finished = options.finished?.(value) ?? true;
  await ctx.db
    .update(leases)
    // Unfinished: expired now, and still not completed, which is what a takeover looks for.
    .set(finished ? { completedAt: sql`now()` } : { expiresAt: sql`now()` })
    .where(and(eq(leases.job, job), eq(leases.bucket, bucket), eq(leases.holder, holder)));
  return { ran: true, value };
}

/** The bucket a moment falls in, for a job that runs once per `periodMs`. */
export function timeBucket(now: Date, periodMs: number): string {
  return new Date(Math.floor(now.getTime() / periodMs) * periodMs).toISOString();
}
