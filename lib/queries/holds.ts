import 'server-only';
import { and, asc, desc, eq, inArray, lte, sql } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { holds } from '../db/schema';
import type { HoldsFilter } from '../console/filters/holds';
import { frozenHoldCondition } from './frozen-holds';

/** Open holds, oldest first: the longest-waiting work is at the top. */
export async function listOpenHolds(db: Executor) {
  return db.select().from(holds).where(eq(holds.status, 'open')).orderBy(asc(holds.openedAt), asc(holds.id));
}

const HOURS_MS = 3_600_000;

/**
 * Holds as the page's filters select them: open ones oldest first, cleared
 * ones most recently cleared first. `owners` are the person's own owner names
 * (for "mine"); `frozenAfterDays` is the frozen threshold.
 */
export async function listHolds(
  db: Executor,
  filter: HoldsFilter,
  context: { owners: string[]; frozenAfterDays: number; now: Date; limit?: number },
) {
  const where = and(
    eq(holds.status, filter.view),
    filter.mine ? inArray(holds.owner, context.owners) : undefined,
    filter.owner ? eq(holds.owner, filter.owner) : undefined,
    filter.reason ? eq(holds.reason, filter.reason) : undefined,
    filter.frozen ? frozenHoldCondition(context.now, context.frozenAfterDays) : undefined,
    filter.minAgeHours !== undefined
      ? lte(holds.openedAt, new Date(context.now.getTime() - filter.minAgeHours * HOURS_MS))
      : undefined,
  );
  const order = filter.view === 'open' ? [asc(holds.openedAt), asc(holds.id)] : [desc(holds.clearedAt), desc(holds.id)];
  return db
    .select()
    .from(holds)
    .where(where)
    .orderBy(...order)
    .limit(context.limit ?? 300);
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
