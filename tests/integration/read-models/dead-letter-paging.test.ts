import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { deadLetterFilter } from '../../../packages/engine/src/core/dead-letters/dead-letter-filter-input';
import { deadLetters } from '../../../packages/engine/src/db/schema';
import { listPendingDeadLetters } from '../../../lib/queries/dead-letters';
import { retriedOutRows } from '../../support/dead-letter-input';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();
const brakes = { maxRedrives: 3, cooldownMs: 0, maxTaskAgeMs: 30 * 86_400_000 };
const now = () => ({ brakes, now: new Date() });

/**
 * `count` pending dead letters of one queue whose created_at values tie in
 * groups of `tie` (and two groups apart by a single microsecond, which a
 * JavaScript Date cannot tell apart): the order's tie-break on id is what keeps
 * pages from repeating or skipping rows.
 */
async function makeTiedDeadLetters(queue: string, count: number, tie: number) {
  const rows = retriedOutRows(queue, count, (index) => ({
    createdAt: sql`timestamptz '2026-11-01 00:00:00.000001+00' + ${Math.floor(index / tie)} * interval '1 microsecond'`,
  }));
  // Inserted in a shuffled order, so ids do not follow created_at.
  const shuffled = [...rows].sort(() => Math.random() - 0.5);
  const created = await database.db.insert(deadLetters).values(shuffled).returning();
  return created.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id - b.id).map((row) => row.id);
}

/** The ids in the list's order as PostgreSQL sorts them (at full precision). */
async function orderedIds(queue: string): Promise<number[]> {
  const rows = await database.db
    .select({ id: deadLetters.id })
    .from(deadLetters)
    .where(sql`${deadLetters.queue} = ${queue} and ${deadLetters.status} = 'pending'`)
    .orderBy(deadLetters.createdAt, deadLetters.id);
  return rows.map((row) => row.id);
}

describe('dead-letter list paging (keyset on created_at, id)', () => {
  it('walks every page forward and back, each dead letter exactly once, with ties in created_at', async () => {
    const queue = `paging-${randomUUID().slice(0, 8)}`;
    await makeTiedDeadLetters(queue, 23, 4);
    const expected = await orderedIds(queue);
    expect(expected).toHaveLength(23);
    const filter = deadLetterFilter.parse({ queue });

    const forward: number[] = [];
    const starts: number[] = [];
    let page = await listPendingDeadLetters(database.db, filter, now(), { limit: 5 });
    for (;;) {
      expect(page.total).toBe(23);
      starts.push(page.firstIndex);
      forward.push(...page.rows.map((row) => row.id));
      if (!page.hasNext) break;
      page = await listPendingDeadLetters(database.db, filter, now(), { limit: 5, after: page.rows.at(-1)!.id });
    }
    expect(forward).toEqual(expected);
    expect(starts).toEqual([1, 6, 11, 16, 21]);
    expect(page.rows).toHaveLength(3);

    const backward: number[][] = [page.rows.map((row) => row.id)];
    while (page.hasPrevious) {
      page = await listPendingDeadLetters(database.db, filter, now(), { limit: 5, before: page.rows[0]!.id });
      backward.unshift(page.rows.map((row) => row.id));
    }
    expect(page.firstIndex).toBe(1);
    expect(backward.flat()).toEqual(expected);
  });

  it('ignores a cursor naming no dead letter, and shows the last page when the rows after a cursor are gone', async () => {
    const queue = `paging-stale-${randomUUID().slice(0, 8)}`;
    await makeTiedDeadLetters(queue, 7, 2);
    const expected = await orderedIds(queue);
    const filter = deadLetterFilter.parse({ queue });

    const stale = await listPendingDeadLetters(database.db, filter, now(), { limit: 5, after: 999_999_999 });
    expect(stale.ignoredCursor).toBe('after');
    expect(stale.rows.map((row) => row.id)).toEqual(expected.slice(0, 5));

    // The last two are redriven meanwhile: a page after the fifth is empty, so the last page shows.
    await database.db
      .update(deadLetters)
      .set({ status: 'redriven' })
      .where(
        sql`${deadLetters.id} in (${sql.join(
          expected.slice(5).map((id) => sql`${id}`),
          sql`, `,
        )})`,
      );
    const past = await listPendingDeadLetters(database.db, filter, now(), { limit: 3, after: expected[4]! });
    expect(past.ignoredCursor).toBeUndefined();
    expect(past.rows.map((row) => row.id)).toEqual(expected.slice(2, 5));
    expect(past.firstIndex).toBe(3);
    expect(past.hasNext).toBe(false);

    // A cursor on a dead letter no longer pending still marks its place.
    const fromRedriven = await listPendingDeadLetters(database.db, filter, now(), { limit: 5, before: expected[6]! });
    expect(fromRedriven.rows.map((row) => row.id)).toEqual(expected.slice(0, 5));
  });
});
