import { and, asc, eq, isNull, lt } from 'drizzle-orm';
import { idempotencyKeys, taskBudgets } from '../../db/schema';
import { nowOf, type CoreContext } from '../kernel/context';
import { DEFAULT_ESCALATION_OWNER, escalateEach, type EscalatedItem, type EscalationOptions } from './escalate-options';

export const DEFAULT_UNCERTAIN_ESCALATE_AFTER_MS = 15 * 60_000;

/**
 * Holds uncertain keys for a person. A key is uncertain when its claim ran out
 * while in progress and its downstream cannot deduplicate: the side effect may
 * or may not have happened. A redelivery finds it and opens the hold itself,
 * but if none comes (the queue gave up, the worker was the last copy) nobody
 * would ever know. So once the claim has been over for `afterMs`, the key gets
 * an `uncertain_outcome` hold for its task's owner (or the default owner), and
 * `escalated_at` is set in the same transaction: each key is escalated once
 * however often this runs, until a new claim takes the key (which resets it).
 * A key that already has an open hold is only marked.
 */
export async function escalateUncertainKeys(
  ctx: CoreContext,
  options: EscalationOptions = {},
): Promise<EscalatedItem[]> {
  const now = options.now ?? nowOf(ctx);
  const cutoff = new Date(now.getTime() - (options.afterMs ?? DEFAULT_UNCERTAIN_ESCALATE_AFTER_MS));
  const k = idempotencyKeys;
  const isUnescalatedUncertain = and(
    eq(k.status, 'in_progress'),
    eq(k.downstreamIdempotent, false),
    lt(k.lockedUntil, cutoff),
    isNull(k.escalatedAt),
  );

  const uncertain = await ctx.db
    .select({
      key: k.key,
      taskId: k.taskId,
      step: k.step,
      holder: k.holder,
      intentAt: k.updatedAt,
      lockedUntil: k.lockedUntil,
      taskOwner: taskBudgets.owner,
    })
    .from(k)
    .leftJoin(taskBudgets, eq(taskBudgets.taskId, k.taskId))
    .where(isUnescalatedUncertain)
    .orderBy(asc(k.lockedUntil))
    .limit(options.limit ?? 500);

  return escalateEach(ctx, uncertain, {
    // Re-checked by the UPDATE: the holder may have reported back, or another sweep marked it, since the scan.
    mark: async (tx, key) =>
      (
        await tx
          .update(k)
          .set({ escalatedAt: now })
          .where(and(eq(k.key, key.key), isUnescalatedUncertain))
          .returning({ key: k.key })
      ).length > 0,
    hold: (key) => ({
      itemType: 'key',
      itemId: key.key,
      reason: 'uncertain_outcome',
      owner: key.taskOwner ?? options.defaultOwner ?? DEFAULT_ESCALATION_OWNER,
      detail: describeUncertainKey(key),
    }),
  });
}

function describeUncertainKey(key: {
  key: string;
  taskId: string | null;
  step: string | null;
  holder: string | null;
  intentAt: Date;
  lockedUntil: Date | null;
}): string {
  const what = key.step && key.taskId ? `Step ${key.step} of task ${key.taskId}` : `Key ${key.key}`;
  const who = key.holder ? ` by ${key.holder}` : '';
  return (
    `${what} was started${who} at ${key.intentAt.toISOString()} and never reported back; its claim ran out at ` +
    `${key.lockedUntil?.toISOString() ?? 'an unknown time'} and no redelivery has come to check it. Its downstream cannot deduplicate, ` +
    'so check whether the side effect happened: resume to run it again if it did not, discard to leave it as done.'
  );
}
