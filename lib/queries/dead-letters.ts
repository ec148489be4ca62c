import 'server-only';
import { and, asc, desc, eq, sql, type SQL } from 'drizzle-orm';
import { DEFAULT_CORE_POLICY, type RedriveBrakes } from '@holdfast/engine/core';
import { pendingMatching, type DeadLetterFilter } from '@holdfast/engine/core';
import { redriveBrakesRefusing } from '@holdfast/engine/core';
import type { Executor } from '@holdfast/engine/db';
import { bulkRedrives, deadLetters, taskBudgets } from '@holdfast/engine/db/schema';

/** The page shows this many of the matching dead letters at a time, oldest first. */
export const DEAD_LETTER_PAGE_SIZE = 50;

/**
 * Where a page starts: after or before a dead letter's place in the list's
 * order (created_at, id). A cursor names a dead letter rather than a time, so
 * its created_at is compared in PostgreSQL at full (microsecond) precision and
 * ties in created_at are broken by id: every row is on exactly one page.
 */
export interface DeadLetterPage {
  after?: number;
  before?: number;
  limit?: number;
}

/** The cursor row's place; a dead letter keeps it after it is redriven or discarded, so the cursor stays good. */
function placeOf(id: number): SQL {
  return sql`(select place.created_at, place.id from dead_letters place where place.id = ${id})`;
}
const position = sql`(${deadLetters.createdAt}, ${deadLetters.id})`;

async function cursorExists(db: Executor, id: number): Promise<boolean> {
  const [found] = await db.select({ id: deadLetters.id }).from(deadLetters).where(eq(deadLetters.id, id));
  return found !== undefined;
}

/**
 * One page of the pending dead letters matching the filter, oldest first, with
 * how many match in all and where the page sits among them. Each row carries
 * the redrive brakes that refuse it now (empty when it may be redriven), judged
 * as a redrive would judge them: by the deployment's brakes and the time given.
 * A page asked for past the end (its rows redriven meanwhile) shows the last
 * page; one asked for before a short start shows the first.
 */
export async function listPendingDeadLetters(
  db: Executor,
  filter: DeadLetterFilter,
  redrive: { brakes: RedriveBrakes; now: Date } = { brakes: DEFAULT_CORE_POLICY.redriveBrakes, now: new Date() },
  page: DeadLetterPage = {},
) {
  const limit = page.limit ?? DEAD_LETTER_PAGE_SIZE;
  const matching = pendingMatching(filter);
  let ignoredCursor: 'after' | 'before' | undefined;
  let after = page.after;
  let before = after === undefined ? page.before : undefined;
  if (after !== undefined && !(await cursorExists(db, after))) [ignoredCursor, after] = ['after', undefined];
  if (before !== undefined && !(await cursorExists(db, before))) [ignoredCursor, before] = ['before', undefined];

  const select = (where: SQL | undefined, order: 'asc' | 'desc') =>
    selectDeadLettersWithHistory(db)
      .where(and(matching, where))
      .orderBy(
        ...(order === 'asc'
          ? [asc(deadLetters.createdAt), asc(deadLetters.id)]
          : [desc(deadLetters.createdAt), desc(deadLetters.id)]),
      )
      .limit(limit);

  const [counted] = await db
    .select({ count: sql<number>`count(*)`.mapWith(Number) })
    .from(deadLetters)
    .where(matching);
  const total = counted?.count ?? 0;

  let found: Awaited<ReturnType<typeof select>>;
  if (after !== undefined) {
    found = await select(sql`${position} > ${placeOf(after)}`, 'asc');
    // Past the end (the rows after the cursor are gone): the last page.
    if (found.length === 0 && total > 0) found = (await select(undefined, 'desc')).reverse();
  } else if (before !== undefined) {
    found = (await select(sql`${position} < ${placeOf(before)}`, 'desc')).reverse();
    // Fewer than a page before the cursor: the first page, so pages keep their size.
    if (found.length < limit) found = await select(undefined, 'asc');
  } else {
    found = await select(undefined, 'asc');
  }

  const first = found[0]?.deadLetter;
  let firstIndex = 0;
  if (first) {
    const [earlier] = await db
      .select({ count: sql<number>`count(*)`.mapWith(Number) })
      .from(deadLetters)
      .where(and(matching, sql`${position} < ${placeOf(first.id)}`));
    firstIndex = (earlier?.count ?? 0) + 1;
  }
  return {
    rows: found.map(({ deadLetter, history }) => ({
      ...deadLetter,
      // A task without a budget row has no redrive history: nothing brakes it (as in redriveInTransaction).
      brakes: history ? redriveBrakesRefusing(history, redrive.brakes, redrive.now) : [],
    })),
    total,
    firstIndex,
    hasPrevious: firstIndex > 1,
    hasNext: first !== undefined && firstIndex - 1 + found.length < total,
    /** The cursor asked for named no dead letter, so the first page is shown instead. */
    ignoredCursor: ignoredCursor as 'after' | 'before' | undefined,
  };
}

export type PendingDeadLetter = Awaited<ReturnType<typeof listPendingDeadLetters>>['rows'][number];

/** The values the filters offer: those of the pending dead letters. */
export async function deadLetterFilterChoices(db: Executor) {
  const rows = await db
    .selectDistinct({ queue: deadLetters.queue, agent: deadLetters.agent, step: deadLetters.step })
    .from(deadLetters)
    .where(eq(deadLetters.status, 'pending'));
  const sorted = (values: string[]) => [...new Set(values)].sort();
  return {
    queues: sorted(rows.map((row) => row.queue)),
    agents: sorted(rows.map((row) => row.agent)),
    steps: sorted(rows.map((row) => row.step)),
  };
}

/** Bulk redrives, newest first: the record of who redrove what, and how it ended. */
export async function listBulkRedrives(db: Executor, limit = 20) {
  return db.select().from(bulkRedrives).orderBy(desc(bulkRedrives.requestedAt), desc(bulkRedrives.id)).limit(limit);
}

export async function getBulkRedrive(db: Executor, id: number) {
  const [run] = await db.select().from(bulkRedrives).where(eq(bulkRedrives.id, id));
  return run;
}

/**
 * Dead letters with their task's redrive history (what the redrive brakes judge), as the list and a
 * dead letter's own page both read them.
 */
export function selectDeadLettersWithHistory(db: Executor) {
  return db
    .select({
      deadLetter: deadLetters,
      history: {
        redrivesUsed: taskBudgets.redrivesUsed,
        lastRedriveAt: taskBudgets.lastRedriveAt,
        createdAt: taskBudgets.createdAt,
      },
    })
    .from(deadLetters)
    .leftJoin(taskBudgets, eq(taskBudgets.taskId, deadLetters.taskId));
}
