import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Executor, Transaction } from '../../db/client';
import { bulkRedriveItems, bulkRedrives, deadLetters, type BulkRedrive, type DeadLetter } from '../../db/schema';
import { writeAudit } from '../audit/audit-log';
import { authorize } from '../identity/authorization';
import { actorLabel, type Actor, type CoreContext } from '../kernel/context';
import { InvalidInputError, NotFoundError, RedriveRefusedError } from '@holdfast/protocol/errors';
import { parseInput } from '@holdfast/protocol/validation';
import { BULK_REDRIVE_LIMIT, refuseOversized } from './bulk-redrive-preview';
import { cancelInput, startBulkRedriveInput } from './bulk-redrive-input';
import { pendingMatching } from './dead-letter-filter';
import { clearOpenHold, lockDeadLetter, redriveInTransaction } from './redrive';

export { startBulkRedriveInput } from './bulk-redrive-input';

// The preview lives in its own file; callers find it here too.
export {
  BULK_REDRIVE_LIMIT,
  judgeRedrive,
  previewBulkRedrive,
  redriveOutcomes,
  type BulkRedrivePreview,
  type RedriveOutcome,
} from './bulk-redrive-preview';

/**
 * Records a bulk redrive and the dead letters it takes on (those pending and
 * matching the filter now), in one transaction with its audit record. The
 * work itself is done by runBulkRedrive. The same request id returns the
 * same run, with `created: false`.
 */
export async function startBulkRedrive(
  ctx: CoreContext,
  input: z.input<typeof startBulkRedriveInput>,
): Promise<{ bulkRedrive: BulkRedrive; created: boolean }> {
  const actor = authorize(ctx, 'dead_letter.redrive');
  const request = parseInput(startBulkRedriveInput, input);
  return ctx.db.transaction(async (tx) => {
    const [earlier] = await tx.select().from(bulkRedrives).where(eq(bulkRedrives.requestId, request.requestId));
    if (earlier) return { bulkRedrive: earlier, created: false };

    const matching = await tx
      .select({ id: deadLetters.id })
      .from(deadLetters)
      .where(pendingMatching(request.filter))
      .orderBy(asc(deadLetters.id))
      .limit(BULK_REDRIVE_LIMIT + 1);
    refuseOversized(matching.length);
    if (matching.length === 0)
      throw new InvalidInputError('No pending dead letter matches this filter', {
        filter: ['matches no pending dead letter'],
      });

    const [created] = await tx
      .insert(bulkRedrives)
      .values({
        requestId: request.requestId,
        filter: request.filter,
        reason: request.reason,
        ratePerSecond: request.ratePerSecond,
        requestedBy: actorLabel(actor),
        total: matching.length,
      })
      .onConflictDoNothing({ target: bulkRedrives.requestId })
      .returning();
    if (!created) {
      // The same request, submitted twice at once: the other submit made the run.
      const [first] = await tx.select().from(bulkRedrives).where(eq(bulkRedrives.requestId, request.requestId));
      if (!first) throw new Error('startBulkRedrive: the conflicting run vanished');
      return { bulkRedrive: first, created: false };
    }
    await tx
      .insert(bulkRedriveItems)
      .values(matching.map((row) => ({ bulkRedriveId: created.id, deadLetterId: row.id })));
    await writeAudit(tx, actor, {
      action: 'dead_letter.bulk_redrive.start',
      targetType: 'bulk_redrive',
      targetId: String(created.id),
      reason: request.reason,
      after: { filter: request.filter, total: created.total, ratePerSecond: created.ratePerSecond },
    });
    return { bulkRedrive: created, created: true };
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Works a bulk redrive through, at most `ratePerSecond` items a second, in
 * small batches. Each batch is one transaction: it re-reads the run (a cancel
 * stops it here), takes the next items with SKIP LOCKED (so two runners never
 * take the same item), redrives each dead letter that is still pending under
 * its row lock (one outbox row at most, whoever else acts on it) and counts
 * the rest as skipped, as it does the items the redrive brakes refuse (a bulk
 * redrive never overrides them). Returns the run as it ended, or, with `maxDurationMs`,
 * as it stands when that slice of time is used up.
 */
export async function runBulkRedrive(
  ctx: CoreContext,
  bulkRedriveId: number,
  options: { maxDurationMs?: number } = {},
): Promise<BulkRedrive> {
  const actor = authorize(ctx, 'dead_letter.redrive');
  const [start] = await ctx.db.select().from(bulkRedrives).where(eq(bulkRedrives.id, bulkRedriveId));
  if (!start) throw new NotFoundError(`No bulk redrive ${bulkRedriveId}`);
  const perBatch = Math.max(1, Math.ceil(start.ratePerSecond / 10));
  const began = Date.now();
  let done = 0;
  for (;;) {
    const step = await ctx.db.transaction(async (tx) => {
      const [run] = await tx.select().from(bulkRedrives).where(eq(bulkRedrives.id, bulkRedriveId)).for('update');
      if (run?.status !== 'running') return { finished: run };
      if (run.cancelRequestedAt) return { finished: await finishRun(tx, actor, run, 'cancelled') };

      const batch = await tx
        .select({ deadLetterId: bulkRedriveItems.deadLetterId })
        .from(bulkRedriveItems)
        .where(and(eq(bulkRedriveItems.bulkRedriveId, run.id), isNull(bulkRedriveItems.outcome)))
        .orderBy(asc(bulkRedriveItems.deadLetterId))
        .limit(perBatch)
        .for('update', { skipLocked: true });
      if (batch.length === 0) return { finished: await finishRun(tx, actor, run, 'completed') };

      const redriven: number[] = [];
      const skipped: number[] = [];
      for (const { deadLetterId } of batch) {
        const deadLetter = await lockDeadLetter(tx, deadLetterId);
        if (deadLetter.status !== 'pending') {
          skipped.push(deadLetterId);
          continue;
        }
        const result = await redriveUnlessBraked(tx, ctx, actor, deadLetter, run.reason);
        if (result?.changed) await clearOpenHold(tx, actor, deadLetterId, 'resume', run.reason);
        (result?.changed ? redriven : skipped).push(deadLetterId);
      }
      for (const [outcome, ids] of [
        ['redriven', redriven],
        ['skipped', skipped],
      ] as const) {
        if (ids.length === 0) continue;
        await tx
          .update(bulkRedriveItems)
          .set({ outcome, doneAt: sql`now()` })
          .where(and(eq(bulkRedriveItems.bulkRedriveId, run.id), inArray(bulkRedriveItems.deadLetterId, ids)));
      }
      await tx
        .update(bulkRedrives)
        .set({
          processed: sql`${bulkRedrives.processed} + ${batch.length}`,
          redriven: sql`${bulkRedrives.redriven} + ${redriven.length}`,
          skipped: sql`${bulkRedrives.skipped} + ${skipped.length}`,
          heartbeatAt: sql`now()`,
        })
        .where(eq(bulkRedrives.id, run.id));
      return { processed: batch.length };
    });
    if ('finished' in step) {
      if (!step.finished) throw new NotFoundError(`No bulk redrive ${bulkRedriveId}`);
      return step.finished;
    }
    done += step.processed;
    if (options.maxDurationMs !== undefined && Date.now() - began >= options.maxDurationMs) {
      // A slice is done; the run stays `running` for whoever carries it on next.
      const [now] = await ctx.db.select().from(bulkRedrives).where(eq(bulkRedrives.id, bulkRedriveId));
      return now!;
    }
    // The n-th item may not be done before n / rate seconds have passed.
    const wait = began + (done / start.ratePerSecond) * 1_000 - Date.now();
    if (wait > 0) await sleep(wait);
  }
}

/** Redrives one item of a bulk run; undefined when the brakes refuse it (it refuses before writing, so the batch goes on). */
async function redriveUnlessBraked(
  tx: Transaction,
  ctx: CoreContext,
  actor: Actor,
  deadLetter: DeadLetter,
  reason: string,
) {
  try {
    return await redriveInTransaction(tx, ctx, actor, deadLetter, { reason });
  } catch (error) {
    if (error instanceof RedriveRefusedError) return undefined;
    throw error;
  }
}

async function finishRun(
  tx: Executor,
  actor: Actor,
  run: BulkRedrive,
  status: 'completed' | 'cancelled',
): Promise<BulkRedrive> {
  const [finished] = await tx
    .update(bulkRedrives)
    .set({ status, finishedAt: sql`now()`, heartbeatAt: sql`now()` })
    .where(eq(bulkRedrives.id, run.id))
    .returning();
  if (!finished) throw new Error('bulk redrive: the locked run vanished');
  await writeAudit(tx, actor, {
    action: `dead_letter.bulk_redrive.${status}`,
    targetType: 'bulk_redrive',
    targetId: String(run.id),
    reason: status === 'cancelled' ? `cancelled by ${run.cancelledBy}` : run.reason,
    before: { status: run.status },
    after: {
      status,
      total: finished.total,
      processed: finished.processed,
      redriven: finished.redriven,
      skipped: finished.skipped,
    },
  });
  return finished;
}

/**
 * Asks a running bulk redrive to stop; it stops before its next batch.
 * Cancelling twice, or after it ended, changes nothing.
 */
export async function cancelBulkRedrive(
  ctx: CoreContext,
  input: z.input<typeof cancelInput>,
): Promise<{ bulkRedrive: BulkRedrive; changed: boolean }> {
  const actor = authorize(ctx, 'dead_letter.redrive');
  const { bulkRedriveId } = parseInput(cancelInput, input);
  return ctx.db.transaction(async (tx) => {
    const [run] = await tx.select().from(bulkRedrives).where(eq(bulkRedrives.id, bulkRedriveId)).for('update');
    if (!run) throw new NotFoundError(`No bulk redrive ${bulkRedriveId}`);
    if (run.status !== 'running' || run.cancelRequestedAt) return { bulkRedrive: run, changed: false };
    const [cancelling] = await tx
      .update(bulkRedrives)
      .set({ cancelRequestedAt: sql`now()`, cancelledBy: actorLabel(actor) })
      .where(eq(bulkRedrives.id, run.id))
      .returning();
    await writeAudit(tx, actor, {
      action: 'dead_letter.bulk_redrive.cancel',
      targetType: 'bulk_redrive',
      targetId: String(run.id),
      before: { status: run.status, processed: run.processed },
      after: { cancelRequested: true },
    });
    return { bulkRedrive: cancelling!, changed: true };
  });
}

/** How long a running bulk redrive's heartbeat may stay quiet before it counts as stalled (HOLDFAST_BULK_REDRIVE_STALLED_SECONDS). */
export const DEFAULT_BULK_REDRIVE_STALLED_MS = 30_000;

/** Running bulk redrives whose runner went quiet (its process died): the sweep carries them on. */
export async function stalledBulkRedrives(
  db: Executor,
  quietForMs = DEFAULT_BULK_REDRIVE_STALLED_MS,
): Promise<number[]> {
  const rows = await db
    .select({ id: bulkRedrives.id })
    .from(bulkRedrives)
    .where(
      and(
        eq(bulkRedrives.status, 'running'),
        sql`${bulkRedrives.heartbeatAt} < now() - ${`${quietForMs} milliseconds`}::interval`,
      ),
    );
  return rows.map((row) => row.id);
}
