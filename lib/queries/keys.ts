import 'server-only';
import { and, asc, desc, eq, isNotNull, like, lte, or, sql } from 'drizzle-orm';
import type { KeysetPosition } from '../filters/keyset-cursor';
import { likeLiteral } from '@holdfast/engine/db';
import type { Executor } from '@holdfast/engine/db';
import { attempts, holds, type IdempotencyKey, idempotencyKeys } from '@holdfast/engine/db/schema';
import { type KeysetOrder, type KeysetPage, readTablePage } from './keyset';

const LIST_LIMIT = 100;

/** Most recently changed first; the key itself breaks ties. */
export const foundKeysOrder: KeysetOrder = {
  time: idempotencyKeys.updatedAt,
  id: idempotencyKeys.key,
  idType: 'text',
  direction: 'desc',
};

/** One page of keys by exact key or its start, by task, or by step: most recently changed first. */
export async function findKeys(
  db: Executor,
  search: { key?: string; taskId?: string; step?: string },
  position: KeysetPosition = {},
  pageSize?: number,
): Promise<KeysetPage<IdempotencyKey & { cursorAt: string }>> {
  const filtered = and(
    search.key ? like(idempotencyKeys.key, `${likeLiteral(search.key)}%`) : undefined,
    search.taskId ? eq(idempotencyKeys.taskId, search.taskId) : undefined,
    search.step ? eq(idempotencyKeys.step, search.step) : undefined,
  );
  return readTablePage(db, {
    table: idempotencyKeys,
    filtered,
    order: foundKeysOrder,
    position,
    pageSize,
    idOf: (row) => row.key,
  });
}

/**
 * Keys still in progress past their in-progress expiry. Where the downstream
 * deduplicates, the next claim takes over; where it cannot, the outcome is
 * uncertain (intent without completion) and waits for a person.
 */
export async function listExpiredInProgress(db: Executor) {
  const expired = and(eq(idempotencyKeys.status, 'in_progress'), lte(idempotencyKeys.lockedUntil, sql`now()`));
  // Each list has its own limit: a backlog of keys the next claim takes over must not push the uncertain
  // ones (which wait for a person) out of one shared page.
  const oldestOf = (idempotent: boolean) =>
    db
      .select()
      .from(idempotencyKeys)
      .where(and(expired, eq(idempotencyKeys.downstreamIdempotent, idempotent)))
      .orderBy(asc(idempotencyKeys.lockedUntil))
      .limit(LIST_LIMIT);
  const [takeover, uncertain, totals] = await Promise.all([
    oldestOf(true),
    oldestOf(false),
    db
      .select({
        takeover: sql<number>`count(*) filter (where ${idempotencyKeys.downstreamIdempotent})`.mapWith(Number),
        uncertain: sql<number>`count(*) filter (where not ${idempotencyKeys.downstreamIdempotent})`.mapWith(Number),
      })
      .from(idempotencyKeys)
      .where(expired),
  ]);
  return {
    takeover,
    uncertain,
    /** How many there are in all: each list shows at most LIST_LIMIT, and says so. */
    totals: { takeover: totals[0]?.takeover ?? 0, uncertain: totals[0]?.uncertain ?? 0 },
    limit: LIST_LIMIT,
  };
}

/** Holds opened because a step was delivered again with different content under its key: the latest, and how many in all. */
export async function listRecentPayloadMismatches(db: Executor) {
  const mismatch = eq(holds.reason, 'payload_mismatch');
  const [rows, [total]] = await Promise.all([
    db.select().from(holds).where(mismatch).orderBy(desc(holds.openedAt), desc(holds.id)).limit(LIST_LIMIT),
    db
      .select({ count: sql<number>`count(*)`.mapWith(Number) })
      .from(holds)
      .where(mismatch),
  ]);
  return { rows, total: total?.count ?? 0 };
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
