import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { runBulkRedrive, startBulkRedrive, type Actor } from '@holdfast/engine/core';
import { runDueSweeps } from '@holdfast/engine/scheduler';
import type { Database } from '@holdfast/engine/db';
import { auditLog, bulkRedrives, deadLetters, holds, redrives } from '@holdfast/engine/db/schema';
import { isDatabaseUnavailable } from '../../../lib/server/database-outage';
import { insertWithHolds, retriedOutRows } from '../../../tests/support/dead-letter-input';
import { waitFor } from './killable-postgres';

export const DEAD_LETTERS = 300;
const oncall: Actor = { type: 'person', id: 'fault-suite@holdfast.local', role: 'responder', teams: [] };

/** Pending dead letters of one queue, each with its open hold, as the library leaves them. */
export async function makeDeadLetters(db: Database, queue: string): Promise<void> {
  await insertWithHolds(db, retriedOutRows(queue, DEAD_LETTERS));
}

/** At 100 a second the run lasts about 3 s, long enough to be killed in the middle; a slower rate leaves more room. */
export async function startRedrive(db: Database, queue: string, ratePerSecond = 100): Promise<number> {
  const { bulkRedrive } = await startBulkRedrive(
    { db, actor: oncall },
    { requestId: randomUUID(), filter: { queue }, reason: 'fault suite', ratePerSecond },
  );
  return bulkRedrive.id;
}

/**
 * The work's error, undefined when it succeeded, or a timeout error after
 * `ms`: a query whose connection died at the wrong moment may never settle.
 */
export function outcomeWithin(work: Promise<unknown>, ms = 20_000): Promise<unknown> {
  return Promise.race([
    work.then(
      () => undefined,
      (error: unknown) => error,
    ),
    new Promise((resolve) => setTimeout(() => resolve(new Error(`no outcome within ${ms} ms`)), ms).unref()),
  ]);
}

/** Runs the bulk redrive directly, as the console's runner does; settles to the error when PostgreSQL dies under it. */
export function runRedrive(db: Database, id: number): Promise<unknown> {
  return outcomeWithin(runBulkRedrive({ db, actor: oncall }, id));
}

/**
 * Runs the due sweeps at `now` (each pass its own time bucket, so a pass cut
 * short by the outage does not hold the next one's lease). The run counts as
 * quiet for the sweep's stall check, standing in for the 30 s it would
 * otherwise have to wait.
 */
export async function sweepAt(db: Database, id: number, now: Date): Promise<unknown> {
  await retryWhileUnavailable(() =>
    db
      .update(bulkRedrives)
      .set({ heartbeatAt: new Date(Date.now() - 120_000) })
      .where(eq(bulkRedrives.id, id)),
  );
  return outcomeWithin(runDueSweeps({ db }, {}, now));
}

/**
 * The suite's own reads right after a restart may meet a pooled connection
 * that died with the old server: like any client, it tries again for a while.
 */
export async function retryWhileUnavailable<T>(work: () => Promise<T>, forMs = 10_000): Promise<T> {
  const deadline = Date.now() + forMs;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (!isDatabaseUnavailable(error) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export async function progress(db: Database, id: number) {
  const [run] = await retryWhileUnavailable(() => db.select().from(bulkRedrives).where(eq(bulkRedrives.id, id)));
  return run!;
}

/** Polls until the run has processed at least `count` items (the moment to pull the plug). */
export async function waitForProgress(db: Database, id: number, count: number): Promise<void> {
  await waitFor(
    async () => (await progress(db, id)).processed >= count,
    20_000,
    `bulk redrive ${id} to process ${count} items`,
  );
}

/** The exact end state: every dead letter redriven once, one outbox row each, one completion. */
export async function redriveOutcome(db: Database, queue: string, id: number) {
  const run = await progress(db, id);
  const [counts] = await db.execute<{
    letters: number;
    redriven: number;
    outbox: number;
    distinctOutbox: number;
    openHolds: number;
  }>(sql`
    select
      (select count(*)::int from ${deadLetters} where queue = ${queue}) as letters,
      (select count(*)::int from ${deadLetters} where queue = ${queue} and status = 'redriven') as redriven,
      (select count(*)::int from ${redrives} where queue = ${queue}) as "outbox",
      (select count(distinct dead_letter_id)::int from ${redrives} where queue = ${queue}) as "distinctOutbox",
      (select count(*)::int from ${holds} h join ${deadLetters} d on h.item_id = d.id::text
        where h.item_type = 'dead_letter' and d.queue = ${queue} and h.status = 'open') as "openHolds"`);
  const completions = await db
    .select({ action: auditLog.action })
    .from(auditLog)
    .where(and(eq(auditLog.targetType, 'bulk_redrive'), eq(auditLog.targetId, String(id))));
  return {
    run: {
      status: run.status,
      total: run.total,
      processed: run.processed,
      redriven: run.redriven,
      skipped: run.skipped,
    },
    ...counts!,
    audit: completions.map((row) => row.action),
  };
}
