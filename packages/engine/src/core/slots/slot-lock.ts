import { and, eq, isNull, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { slotEvidence, slotLocks } from '../../db/schema';
import { agentOfRun } from '../identity/agent-targets';
import { enforceTokenLimits } from '../identity/authorization';
import type { CoreContext } from '../kernel/context';
import { NotFoundError, NotHolderError, StaleTokenError } from '@holdfast/protocol/errors';
import { cachedStatement } from '../kernel/prepared';
import { parseInput } from '@holdfast/protocol/validation';
import {
  acquireSlotInput,
  evidenceInput,
  heartbeatSlotInput,
  releaseSlotInput,
} from '@holdfast/protocol/inputs/slot-lock-input';

export {
  acquireSlotInput,
  evidenceInput,
  heartbeatSlotInput,
  releaseSlotInput,
} from '@holdfast/protocol/inputs/slot-lock-input';

export type AcquireSlotOutcome =
  | { outcome: 'acquired'; slot: string; fencingToken: number; expiresAt: Date; evidence: string[] }
  | { outcome: 'conflict'; slot: string; holderRunKey: string; expiresAt: Date };

/**
 * Takes the slot for a run, in one statement. A free slot (never held,
 * released, or past its time to live) goes to the caller with a token one
 * higher than any before; the same run asking again keeps its token and
 * extends the lock; anyone else gets a conflict naming the holder. The
 * acquired outcome lists evidence already recorded for the slot, so a
 * successor can see that the side effect happened before repeating it.
 */
export async function acquireSlot(
  ctx: CoreContext,
  input: z.input<typeof acquireSlotInput>,
): Promise<AcquireSlotOutcome> {
  const request = parseInput(acquireSlotInput, input);
  // A slot is taken for a run: the token must be allowed to act for that run's agent.
  await enforceTokenLimits(ctx, () => agentOfRun(ctx.db, request.runKey));
  const [row] = await acquireStatement(ctx.db).execute(request);
  if (!row) throw new Error('acquireSlot: the upsert returned no row');

  if (row.holderRunKey !== request.runKey || row.releasedAt !== null) {
    return { outcome: 'conflict', slot: row.slot, holderRunKey: row.holderRunKey, expiresAt: row.expiresAt };
  }
  return {
    outcome: 'acquired',
    slot: row.slot,
    fencingToken: row.fencingToken,
    expiresAt: row.expiresAt,
    evidence: row.evidence,
  };
}

const acquireStatement = cachedStatement((db) => {
  const l = slotLocks;
  const free = sql`(${l.releasedAt} is not null or ${l.expiresAt} <= now())`;
  const mine = sql`(${l.holderRunKey} = excluded.holder_run_key and ${l.releasedAt} is null)`;
  return db
    .insert(l)
    .values({
      slot: sql.placeholder('slot'),
      holderRunKey: sql.placeholder('runKey'),
      fencingToken: 1,
      expiresAt: sql`now() + make_interval(secs => ${sql.placeholder('ttlMs')}::double precision / 1000)`,
    })
    .onConflictDoUpdate({
      target: l.slot,
      set: {
        holderRunKey: sql`case when ${free} then excluded.holder_run_key else ${l.holderRunKey} end`,
        fencingToken: sql`case when ${free} then ${l.fencingToken} + 1 else ${l.fencingToken} end`,
        acquiredAt: sql`case when ${free} then now() else ${l.acquiredAt} end`,
        expiresAt: sql`case when ${free} or ${mine} then excluded.expires_at else ${l.expiresAt} end`,
        heartbeatAt: sql`case when ${free} or ${mine} then now() else ${l.heartbeatAt} end`,
        releasedAt: sql`case when ${free} then null else ${l.releasedAt} end`,
        releasedBy: sql`case when ${free} then null else ${l.releasedBy} end`,
        // A fresh lock is not stale: the sweeper's refusals of the old one no longer apply, and a
        // new holder may be escalated anew should its own lock go stale.
        releaseRefusedSince: sql`case when ${free} or ${mine} then null else ${l.releaseRefusedSince} end`,
        releaseRefusedGuards: sql`case when ${free} or ${mine} then null else ${l.releaseRefusedGuards} end`,
        escalatedAt: sql`case when ${free} then null else ${l.escalatedAt} end`,
      },
    })
    .returning({
      slot: l.slot,
      holderRunKey: l.holderRunKey,
      fencingToken: l.fencingToken,
      expiresAt: l.expiresAt,
      releasedAt: l.releasedAt,
      // Read in the same statement, so acquiring stays one round trip. Written out with
      // explicit table names: in RETURNING drizzle leaves columns unqualified, and an
      // unqualified "slot" inside the subquery would mean the evidence's own column.
      evidence: sql<
        string[]
      >`array(select evidence.ref from slot_evidence evidence where evidence.slot = "slot_locks"."slot" order by evidence.id)`,
    })
    .prepare('acquire_slot');
});

/** Extends the holder's lock; anyone else is refused with NOT_HOLDER. */
export async function heartbeatSlot(ctx: CoreContext, input: z.input<typeof heartbeatSlotInput>): Promise<Date> {
  const request = parseInput(heartbeatSlotInput, input);
  await enforceTokenLimits(ctx, () => agentOfRun(ctx.db, request.runKey));
  const l = slotLocks;
  const [row] = await ctx.db
    .update(l)
    // A heartbeat makes the lock fresh again: any refusal noted while it was stale no longer applies.
    .set({
      expiresAt: sql`now() + ${`${request.ttlMs} milliseconds`}::interval`,
      heartbeatAt: sql`now()`,
      releaseRefusedSince: null,
      releaseRefusedGuards: null,
    })
    .where(
      and(
        eq(l.slot, request.slot),
        eq(l.holderRunKey, request.runKey),
        eq(l.fencingToken, request.fencingToken),
        isNull(l.releasedAt),
      ),
    )
    .returning({ expiresAt: slotLocks.expiresAt });
  if (!row) throw await notHolder(ctx, request.slot, request.runKey);
  return row.expiresAt;
}

/**
 * Releases the lock, for its owner only: a zombie run cannot free its
 * successor's lock (NOT_HOLDER). Releasing twice is harmless.
 */
export async function releaseSlot(ctx: CoreContext, input: z.input<typeof releaseSlotInput>): Promise<void> {
  const request = parseInput(releaseSlotInput, input);
  await enforceTokenLimits(ctx, () => agentOfRun(ctx.db, request.runKey));
  const l = slotLocks;
  const released = await ctx.db
    .update(l)
    .set({
      releasedAt: sql`now()`,
      releasedBy: `run:${request.runKey}`,
      releaseRefusedSince: null,
      releaseRefusedGuards: null,
    })
    .where(and(eq(l.slot, request.slot), eq(l.holderRunKey, request.runKey), isNull(l.releasedAt)))
    .returning({ slot: l.slot });
  if (released.length > 0) return;

  const [current] = await ctx.db.select().from(l).where(eq(l.slot, request.slot));
  if (current && current.holderRunKey === request.runKey && current.releasedAt !== null) return; // already released by us
  throw await notHolder(ctx, request.slot, request.runKey);
}

/**
 * Notes that the slot's side effect happened. Refused under a token that is no
 * longer current, so a superseded run cannot write as if it still held the slot.
 */
export async function recordEvidence(ctx: CoreContext, input: z.input<typeof evidenceInput>): Promise<void> {
  const request = parseInput(evidenceInput, input);
  await enforceTokenLimits(ctx, () => agentOfRun(ctx.db, request.runKey));
  await ctx.db.transaction(async (tx) => {
    // Lock the slot row so the token cannot change between the check and the insert.
    const [lock] = await tx.select().from(slotLocks).where(eq(slotLocks.slot, request.slot)).for('update');
    if (!lock) throw new NotFoundError(`Slot "${request.slot}" was never acquired`);
    if (lock.fencingToken !== request.fencingToken || lock.holderRunKey !== request.runKey) {
      throw new StaleTokenError(
        `Slot "${request.slot}" is at token ${lock.fencingToken} (held by ${lock.holderRunKey}); a write under token ${request.fencingToken} is refused`,
      );
    }
    await tx
      .insert(slotEvidence)
      .values({ slot: request.slot, runKey: request.runKey, fencingToken: request.fencingToken, ref: request.ref })
      .onConflictDoNothing();
  });
}

async function notHolder(ctx: CoreContext, slotName: string, caller: string): Promise<Error> {
  const [current] = await ctx.db.select().from(slotLocks).where(eq(slotLocks.slot, slotName));
  if (!current) return new NotFoundError(`Slot "${slotName}" was never acquired`);
  const holder = current.releasedAt
    ? 'nobody (released)'
    : `run "${current.holderRunKey}" (token ${current.fencingToken})`;
  return new NotHolderError(`Run "${caller}" does not hold slot "${slotName}"; it is held by ${holder}`);
}
