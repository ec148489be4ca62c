import 'server-only';
import { and, asc, desc, eq, isNotNull, like, lte, or, sql } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { attempts, holds, idempotencyKeys } from '../db/schema';

const LIST_LIMIT = 100;
const literal = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);

/** Keys by exact key or its start, by task, or by step: newest first. */
export async function findKeys(db: Executor, search: { key?: string; taskId?: string; step?: string }) {
  return db
    .select()
    .from(idempotencyKeys)
    .where(
      and(
        search.key ? like(idempotencyKeys.key, `${literal(search.key)}%`) : undefined,
        search.taskId ? eq(idempotencyKeys.taskId, search.taskId) : undefined,
        search.step ? eq(idempotencyKeys.step, search.step) : undefined,
      ),
    )
    .orderBy(desc(idempotencyKeys.updatedAt))
    .limit(LIST_LIMIT);
}

/**
 * Keys still in progress past their in-progress expiry. Where the downstream
 * deduplicates, the next claim takes over; where it cannot, the outcome is
 * uncertain (intent without completion) and waits for a person.
 */
export async function listExpiredInProgress(db: Executor) {
  const rows = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.status, 'in_progress'), lte(idempotencyKeys.lockedUntil, sql`now()`)))
    .orderBy(asc(idempotencyKeys.lockedUntil))
    .limit(LIST_LIMIT);
  return {
    takeover: rows.filter((row) => row.downstreamIdempotent),
    uncertain: rows.filter((row) => !row.downstreamIdempotent),
  };
}

/** Holds opened because a step was delivered again with different content under its key. */
export async function listRecentPayloadMismatches(db: Executor) {
  return db
    .select()
    .from(holds)
    .where(eq(holds.reason, 'payload_mismatch'))
    .orderBy(desc(holds.openedAt))
    .limit(LIST_LIMIT);
}

/** One key with the attempts made under it and the holds about it or its task. */
export async function getKeyDetail(db: Executor, key: string) {
  const [row] = await db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, key));
  if (!row) return undefined;
  const [keyAttempts, keyHolds] = await Promise.all([
    row.taskId && row.step
      ? db
          .select()
          .from(attempts)
          .where(and(eq(attempts.taskId, row.taskId), eq(attempts.step, row.step), eq(attempts.idempotencyKey, key)))
          .orderBy(asc(attempts.attemptNumber))
      : Promise.resolve([]),
    db
      .select()
      .from(holds)
      .where(
        or(
          and(eq(holds.itemType, 'key'), eq(holds.itemId, key)),
          row.taskId ? and(eq(holds.itemType, 'task'), eq(holds.itemId, row.taskId), isNotNull(holds.id)) : undefined,
        ),
      )
      .orderBy(desc(holds.openedAt)),
  ]);
  return { key: row, attempts: keyAttempts, holds: keyHolds };
}
