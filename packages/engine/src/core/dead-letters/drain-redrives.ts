import { and, asc, eq, inArray, isNull, lte, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Transaction } from '../../db/client';
import { deadLetters, redrives, type Redrive } from '../../db/schema';
import { decideTokenLimits, enforceTokenLimits, hasTokenLimits } from '../identity/authorization';
import type { CoreContext } from '../kernel/context';
import { ForbiddenError, NotFoundError } from '@holdfast/protocol/errors';
import { parseInput } from '@holdfast/protocol/validation';
import { acknowledgeRedriveInput, claimRedrivesInput } from '@holdfast/protocol/inputs/drain-redrives-input';

export { acknowledgeRedriveInput, claimRedrivesInput } from '@holdfast/protocol/inputs/drain-redrives-input';

/**
 * Hands one redrive to the queue. It runs inside the transaction that marks the
 * row delivered: a queue in the same PostgreSQL (pg-boss) should enqueue
 * through `tx`, so delivery and mark commit or vanish together; any other
 * queue should deduplicate on `redrive.outboxKey`.
 */
export type DeliverRedrive = (redrive: Redrive, tx: Transaction) => Promise<void>;

export interface DrainResult {
  delivered: number;
  failed: number;
}

const MAX_BACKOFF_MS = 15 * 60_000;

/**
 * Delivers due redrives, one row per transaction, claimed with FOR UPDATE SKIP
 * LOCKED so several drainers share the work without blocking or doubling it.
 * A failed delivery is kept, with its error, and tried again after a backoff;
 * a drainer that dies mid-batch leaves its uncommitted row for the next one.
 */
export async function drainRedrives(
  ctx: CoreContext,
  deliver: DeliverRedrive,
  options: { limit?: number } = {},
): Promise<DrainResult> {
  const limit = options.limit ?? 100;
  const result: DrainResult = { delivered: 0, failed: 0 };
  for (let handled = 0; handled < limit; handled++) {
    const outcome = await ctx.db.transaction(async (tx) => {
      const [due] = await tx
        .select()
        .from(redrives)
        .where(and(isNull(redrives.deliveredAt), lte(redrives.nextAttemptAt, sql`now()`)))
        .orderBy(asc(redrives.id))
        .limit(1)
        .for('update', { skipLocked: true });
      if (!due) return 'none' as const;
      try {
        await tx.transaction((delivery) => deliver(due, delivery));
      } catch (error) {
        const backoffMs = Math.min(MAX_BACKOFF_MS, 1_000 * 2 ** due.deliveryAttempts);
        await tx
          .update(redrives)
          .set({
            deliveryAttempts: sql`${redrives.deliveryAttempts} + 1`,
            nextAttemptAt: sql`now() + ${`${backoffMs} milliseconds`}::interval`,
            lastError: error instanceof Error ? error.message : String(error),
          })
          .where(eq(redrives.id, due.id));
        return 'failed' as const;
      }
      await tx
        .update(redrives)
        .set({ deliveredAt: sql`now()`, deliveryAttempts: sql`${redrives.deliveryAttempts} + 1`, lastError: null })
        .where(eq(redrives.id, due.id));
      return 'delivered' as const;
    });
    if (outcome === 'none') break;
    result[outcome] += 1;
  }
  return result;
}

/**
 * For drainers outside the database (any queue, through the HTTP API): takes
 * up to `limit` due redrives and hides them for `leaseMs`. The drainer
 * enqueues each, deduplicating on its outbox key, then acknowledges it; one
 * not acknowledged in time is handed out again (at least once, never lost).
 */
export async function claimRedrives(ctx: CoreContext, input: z.input<typeof claimRedrivesInput>): Promise<Redrive[]> {
  const request = parseInput(claimRedrivesInput, input);
  const { limit, leaseMs } = request;
  const queues = queuesToClaim(ctx, request.queues);
  // A token limited to agents takes only its agents' redrives, whatever queues it names: another agent's would
  // hand it that agent's payloads and hide them from their own drainer for the lease.
  const agents = hasTokenLimits(ctx.actor) ? ctx.actor.allowedAgents : undefined;
  return ctx.db.transaction(async (tx) => {
    const due = await tx
      .select({ id: redrives.id })
      .from(redrives)
      .where(
        and(
          isNull(redrives.deliveredAt),
          lte(redrives.nextAttemptAt, sql`now()`),
          queues ? inArray(redrives.queue, queues) : undefined,
          agents
            ? inArray(
                redrives.deadLetterId,
                tx.select({ id: deadLetters.id }).from(deadLetters).where(inArray(deadLetters.agent, agents)),
              )
            : undefined,
        ),
      )
      .orderBy(asc(redrives.id))
      .limit(limit)
      .for('update', { skipLocked: true });
    if (due.length === 0) return [];
    return tx
      .update(redrives)
      .set({
        nextAttemptAt: sql`now() + ${`${leaseMs} milliseconds`}::interval`,
        deliveryAttempts: sql`${redrives.deliveryAttempts} + 1`,
      })
      .where(
        inArray(
          redrives.id,
          due.map((row) => row.id),
        ),
      )
      .returning();
  });
}

/**
 * The queues a claim takes from: those it names, each of which a limited token
 * must be allowed (FORBIDDEN naming the first that is not); a claim naming
 * none takes from every queue, or, for a token limited to queues, from those only.
 */
function queuesToClaim(ctx: CoreContext, named: string[] | undefined): string[] | undefined {
  const actor = ctx.actor;
  if (!hasTokenLimits(actor) || !actor.allowedQueues) return named;
  if (!named) return actor.allowedQueues;
  for (const queue of named) {
    const decision = decideTokenLimits(actor, { queue });
    if (!decision.allowed)
      throw new ForbiddenError(`${actor.type}:${actor.id} may not claim redrives: ${decision.reason}`);
  }
  return named;
}

/** Marks a claimed redrive delivered. Acknowledging it again changes nothing. */
export async function acknowledgeRedrive(
  ctx: CoreContext,
  input: z.input<typeof acknowledgeRedriveInput>,
): Promise<{ redrive: Redrive; changed: boolean }> {
  const { outboxKey } = parseInput(acknowledgeRedriveInput, input);
  await enforceTokenLimits(ctx, async () => {
    const [redrive] = await ctx.db
      .select({ queue: redrives.queue, agent: deadLetters.agent })
      .from(redrives)
      .innerJoin(deadLetters, eq(deadLetters.id, redrives.deadLetterId))
      .where(eq(redrives.outboxKey, outboxKey));
    return { queue: redrive?.queue, agent: redrive?.agent };
  });
  const [delivered] = await ctx.db
    .update(redrives)
    .set({ deliveredAt: sql`now()`, lastError: null })
    .where(and(eq(redrives.outboxKey, outboxKey), isNull(redrives.deliveredAt)))
    .returning();
  if (delivered) return { redrive: delivered, changed: true };
  const [existing] = await ctx.db.select().from(redrives).where(eq(redrives.outboxKey, outboxKey));
  if (!existing) throw new NotFoundError(`No redrive ${outboxKey}`);
  return { redrive: existing, changed: false };
}
