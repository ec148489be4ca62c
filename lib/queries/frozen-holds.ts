import { eq, lte, or, sql, type SQL } from 'drizzle-orm';
import { holds } from '@holdfast/engine/db/schema';

/**
 * The one meaning of a frozen hold (DOMAIN 14: items with no state change for
 * days are frozen): the idle sweep's own `frozen` hold, or any hold that has
 * itself waited open past the threshold. The Overview's tile, the Holds page's
 * filter and its badge all count by this, so their figures agree.
 */
export function frozenSince(now: Date, frozenAfterDays: number): Date {
  return new Date(now.getTime() - frozenAfterDays * 86_400_000);
}

export function isFrozenHold(hold: { reason: string; openedAt: Date }, now: Date, frozenAfterDays: number): boolean {
  return hold.reason === 'frozen' || hold.openedAt.getTime() <= frozenSince(now, frozenAfterDays).getTime();
}

/** The same test as a drizzle condition, for the holds list. */
export function frozenHoldCondition(now: Date, frozenAfterDays: number): SQL | undefined {
  return or(eq(holds.reason, 'frozen'), lte(holds.openedAt, frozenSince(now, frozenAfterDays)));
}

/** The same test in raw SQL, for a hold as it stood at `at` (a timestamptz expression). */
export function frozenHoldSql(at: SQL, frozenAfterDays: number): SQL {
  return sql`(reason = 'frozen' or opened_at <= ${at} - make_interval(secs => ${frozenAfterDays * 86_400}))`;
}
