import 'server-only';
import { asc, desc, eq, sql } from 'drizzle-orm';
import { pendingMatching, type DeadLetterFilter } from '../core/dead-letters/dead-letter-filter';
import type { Executor } from '../db/client';
import { bulkRedrives, deadLetters } from '../db/schema';

/** The page shows this many of the matching dead letters, oldest first; the count covers all. */
export const DEAD_LETTER_PAGE_SIZE = 200;

/** Pending dead letters matching the filter, oldest first, with how many match in all. */
export async function listPendingDeadLetters(db: Executor, filter: DeadLetterFilter) {
  const where = pendingMatching(filter);
  const [rows, [counted]] = await Promise.all([
    db.select().from(deadLetters).where(where).orderBy(asc(deadLetters.createdAt), asc(deadLetters.id)).limit(DEAD_LETTER_PAGE_SIZE),
    db.select({ count: sql<number>`count(*)`.mapWith(Number) }).from(deadLetters).where(where),
  ]);
  return { rows, total: counted?.count ?? 0 };
}

/** The values the filters offer: those of the pending dead letters. */
export async function deadLetterFilterChoices(db: Executor) {
  const rows = await db
    .selectDistinct({ queue: deadLetters.queue, agent: deadLetters.agent, step: deadLetters.step })
    .from(deadLetters)
    .where(eq(deadLetters.status, 'pending'));
  const sorted = (values: string[]) => [...new Set(values)].sort();
  return { queues: sorted(rows.map((row) => row.queue)), agents: sorted(rows.map((row) => row.agent)), steps: sorted(rows.map((row) => row.step)) };
}

/** Bulk redrives, newest first: the record of who redrove what, and how it ended. */
export async function listBulkRedrives(db: Executor, limit = 20) {
  return db.select().from(bulkRedrives).orderBy(desc(bulkRedrives.requestedAt), desc(bulkRedrives.id)).limit(limit);
}

export async function getBulkRedrive(db: Executor, id: number) {
  const [run] = await db.select().from(bulkRedrives).where(eq(bulkRedrives.id, id));
  return run;
}
