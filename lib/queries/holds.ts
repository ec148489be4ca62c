import 'server-only';
import { and, asc, desc, eq, inArray, lte, sql } from 'drizzle-orm';
import { keysetPosition } from '../filters/keyset-cursor';
import type { HoldsFilter } from '../filters/holds';
import type { Executor } from '../db/client';
import { type Hold, holds } from '../db/schema';
import { frozenHoldCondition } from './frozen-holds';
import { type KeysetOrder, type KeysetPage, readTablePage } from './keyset';

/** Open holds, oldest first: the longest-waiting work is at the top. */
export async function listOpenHolds(db: Executor) {
  return db.select().from(holds).where(eq(holds.status, 'open')).orderBy(asc(holds.openedAt), asc(holds.id));
}

const HOURS_MS = 3_600_000;

/** Open holds oldest first (the longest-waiting work at the top); cleared ones most recently cleared first. */
export function holdsOrder(view: HoldsFilter['view']): KeysetOrder {
  return view === 'open'
    ? { time: holds.openedAt, id: holds.id, idType: 'bigint', direction: 'asc' }
    : { time: holds.clearedAt, id: holds.id, idType: 'bigint', direction: 'desc' };
}

/**
 * One page of holds as the page's filters select them, in `holdsOrder`.
 * `owners` are the person's own owner names (for "mine"); `frozenAfterDays`
 * is the frozen threshold.
 */
export async function listHolds(
  db: Executor,
  filter: HoldsFilter,
  context: { owners: string[]; frozenAfterDays: number; now: Date; pageSize?: number },
): Promise<KeysetPage<Hold & { cursorAt: string }>> {
  const filtered = and(
    eq(holds.status, filter.view),
    filter.mine ? inArray(holds.owner, context.owners) : undefined,
    filter.owner ? eq(holds.owner, filter.owner) : undefined,
    filter.reason ? eq(holds.reason, filter.reason) : undefined,
    filter.frozen ? frozenHoldCondition(context.now, context.frozenAfterDays) : undefined,
    filter.minAgeHours !== undefined
      ? lte(holds.openedAt, new Date(context.now.getTime() - filter.minAgeHours * HOURS_MS))
      : undefined,
  );
  return readTablePage(db, {
    table: holds,
    filtered,
    order: holdsOrder(filter.view),
    position: keysetPosition(filter),
    pageSize: context.pageSize,
    idOf: (hold) => hold.id,
  });
}

/** Open holds per reason: the page's summary and quick filters. */
export async function countOpenHoldsByReason(db: Executor) {
  const rows = await db
    .select({ reason: holds.reason, count: sql<number>`count(*)`.mapWith(Number) })
    .from(holds)
    .where(eq(holds.status, 'open'))
    .groupBy(holds.reason)
    .orderBy(desc(sql`count(*)`));
  return rows;
}

/** Owners that have open holds, for the owner filter. */
export async function listHoldOwners(db: Executor) {
  const rows = await db
    .selectDistinct({ owner: holds.owner })
    .from(holds)
    .where(eq(holds.status, 'open'))
    .orderBy(asc(holds.owner));
  return rows.map((row) => row.owner);
}
