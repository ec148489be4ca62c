import 'server-only';
import { asc, desc, eq, sql } from 'drizzle-orm';
import { DEFAULT_CORE_POLICY, type RedriveBrakes } from '../core/context';
import { pendingMatching, type DeadLetterFilter } from '../core/dead-letters/dead-letter-filter';
import { redriveBrakesRefusing } from '../core/dead-letters/redrive-brakes';
import type { Executor } from '../db/client';
import { bulkRedrives, deadLetters, taskBudgets } from '../db/schema';

/** The page shows this many of the matching dead letters, oldest first; the count covers all. */
export const DEAD_LETTER_PAGE_SIZE = 200;

/**
 * Pending dead letters matching the filter, oldest first, with how many match
 * in all. Each row carries the redrive brakes that refuse it now (empty when
 * it may be redriven), judged as a redrive would judge them: by the
 * deployment's brakes and the time given (the defaults and now without them).
 */
export async function listPendingDeadLetters(
  db: Executor,
  filter: DeadLetterFilter,
  redrive: { brakes: RedriveBrakes; now: Date } = { brakes: DEFAULT_CORE_POLICY.redriveBrakes, now: new Date() },
) {
  const where = pendingMatching(filter);
  const [rows, [counted]] = await Promise.all([
    db
      .select({
        deadLetter: deadLetters,
        history: {
          redrivesUsed: taskBudgets.redrivesUsed,
          lastRedriveAt: taskBudgets.lastRedriveAt,
          createdAt: taskBudgets.createdAt,
        },
      })
      .from(deadLetters)
      .leftJoin(taskBudgets, eq(taskBudgets.taskId, deadLetters.taskId))
      .where(where)
      .orderBy(asc(deadLetters.createdAt), asc(deadLetters.id))
      .limit(DEAD_LETTER_PAGE_SIZE),
    db
      .select({ count: sql<number>`count(*)`.mapWith(Number) })
      .from(deadLetters)
      .where(where),
  ]);
  return {
    rows: rows.map(({ deadLetter, history }) => ({
      ...deadLetter,
      // A task without a budget row has no redrive history: nothing brakes it (as in redriveInTransaction).
      brakes: history ? redriveBrakesRefusing(history, redrive.brakes, redrive.now) : [],
    })),
    total: counted?.count ?? 0,
  };
}

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
