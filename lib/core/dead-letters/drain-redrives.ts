import { and, asc, eq, isNull, lte, sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import { redrives, type Redrive } from '../../db/schema';
import type { CoreContext } from '../context';

/**
 * Hands one redrive to the queue. It runs inside the transaction that marks the
 * row delivered: a queue in the same PostgreSQL (pg-boss) should enqueue
 * through `tx`, so delivery and mark commit or vanish together; any other
 * queue should deduplicate on `redrive.outboxKey`.
 */
export type DeliverRedrive = (redrive: Redrive, tx: Transaction) => Promise<void>;

export interface DrainResult {
  delivered: number;
  failed: number;
}

const MAX_BACKOFF_MS = 15 * 60_000;

/**
 * Delivers due redrives, one row per transaction, claimed with FOR UPDATE SKIP
 * LOCKED so several drainers share the work without blocking or doubling it.
 * A failed delivery is kept, with its error, and tried again after a backoff;
 * a drainer that dies mid-batch leaves its uncommitted row for the next one.
 */
export async function drainRedrives(ctx: CoreContext, deliver: DeliverRedrive, options: { limit?: number } = {}): Promise<DrainResult> {
  const limit = options.limit ?? 100;
  const result: DrainResult = { delivered: 0, failed: 0 };
  for (let handled = 0; handled < limit; handled++) {
    const outcome = await ctx.db.transaction(async (tx) => {
      const [due] = await tx
        .select()
        .from(redrives)
        .where(and(isNull(redrives.deliveredAt), lte(redrives.nextAttemptAt, sql`now()`)))
        .orderBy(asc(redrives.id))
        .limit(1)
        .for('update', { skipLocked: true });
      if (!due) return 'none' as const;
      try {
        await tx.transaction((delivery) => deliver(due, delivery));
      } catch (error) {
        const backoffMs = Math.min(MAX_BACKOFF_MS, 1_000 * 2 ** due.deliveryAttempts);
        await tx
          .update(redrives)
          .set({
            deliveryAttempts: sql`${redrives.deliveryAttempts} + 1`,
            nextAttemptAt: sql`now() + ${`${backoffMs} milliseconds`}::interval`,
            lastError: error instanceof Error ? error.message : String(error),
          })
          .where(eq(redrives.id, due.id));
        return 'failed' as const;
      }
      await tx
        .update(redrives)
        .set({ deliveredAt: sql`now()`, deliveryAttempts: sql`${redrives.deliveryAttempts} + 1`, lastError: null })
        .where(eq(redrives.id, due.id));
      return 'delivered' as const;
    });
    if (outcome === 'none') break;
    result[outcome] += 1;
  }
  return result;
}
