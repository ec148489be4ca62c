import 'server-only';
import { and, asc, desc, eq, inArray, lte, sql } from 'drizzle-orm';
import { keysetPosition } from '../filters/keyset-cursor';
import type { HoldsFilter } from '../filters/holds';
import type { Executor } from '@holdfast/engine/db';
import { type Hold, holds } from '@holdfast/engine/db/schema';
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
  context: HoldsContext & { pageSize?: number },
): Promise<KeysetPage<Hold & { cursorAt: string }>> {
  return readTablePage(db, {
    table: holds,
    filtered: and(eq(holds.status, filter.view), holdsMatching(filter, context)),
    order: holdsOrder(filter.view),
    position: keysetPosition(filter),
    pageSize: context.pageSize,
    idOf: (hold) => hold.id,
  });
}

/** What the filters other than the view and the page read: the person's owner names, the frozen threshold, now. */
interface HoldsContext {
  owners: string[];
  frozenAfterDays: number;
  now: Date;
}

/** The filters' conditions (mine, owner, reason, frozen, age); the reason left out when asked, for its counts. */
function holdsMatching(filter: HoldsFilter, context: HoldsContext, options: { ignoreReason?: boolean } = {}) {
  return and(
    filter.mine ? inArray(holds.owner, context.owners) : undefined,
    filter.owner ? eq(holds.owner, filter.owner) : undefined,
    filter.reason && !options.ignoreReason ? eq(holds.reason, filter.reason) : undefined,
    filter.frozen ? frozenHoldCondition(context.now, context.frozenAfterDays) : undefined,
    filter.minAgeHours !== undefined
      ? lte(holds.openedAt, new Date(context.now.getTime() - filter.minAgeHours * HOURS_MS))
      : undefined,
  );
}

/**
 * Open holds per reason, within the page's other filters (mine, owner, frozen, age): the page's quick filters, so a
 * chip counts what choosing it would list.
 */
export async function countOpenHoldsByReason(db: Executor, filter: HoldsFilter, context: HoldsContext) {
  const rows = await db
    .select({ reason: holds.reason, count: sql<number>`count(*)`.mapWith(Number) })
    .from(holds)
    .where(and(eq(holds.status, 'open'), holdsMatching(filter, context, { ignoreReason: true })))
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
