import { and, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { idempotencyKeys } from '../../db/schema';
import { targetOfKey } from '../identity/agent-targets';
import { enforceTokenLimits } from '../identity/authorization';
import type { CoreContext } from '../kernel/context';
import { ForbiddenError, NotFoundError, StaleTokenError, StateConflictError } from '@holdfast/protocol/errors';
import { cachedStatement } from '../kernel/prepared';
import { expiresAfterRetentionSql } from './claim-key';
import { parseInput } from '@holdfast/protocol/validation';
import { storedRawKey } from './raw-key-name';
import { completeKeyInput, failKeyInput } from '@holdfast/protocol/inputs/settle-key-input';

export { completeKeyInput, failKeyInput } from '@holdfast/protocol/inputs/settle-key-input';

/**
 * Raw keys only, by the caller's name (stored under the raw prefix): a step
 * key is settled by its step's finish, never here.
 *
 * Marks the key completed with its result, only for the current holder: a
 * superseded holder's late completion is refused with STALE_TOKEN.
 */
export async function completeKey(ctx: CoreContext, input: z.input<typeof completeKeyInput>): Promise<void> {
  const { key, fencingToken, result } = parseInput(completeKeyInput, input);
  await settle(ctx, storedRawKey(key), fencingToken, {
    status: 'completed',
    result,
    errorClass: null,
    errorText: null,
  });
}

/**
 * Marks the key failed, only for the current holder. A failed key may be
 * claimed again (with a higher token): whether to retry is the retry policy's call.
 */
export async function failKey(ctx: CoreContext, input: z.input<typeof failKeyInput>): Promise<void> {
  const { key, fencingToken, errorClass, errorText } = parseInput(failKeyInput, input);
  await settle(ctx, storedRawKey(key), fencingToken, { status: 'failed', result: null, errorClass, errorText });
}

/** The holder's write: only the current token of an in-progress key may settle it. */
const settleStatement = cachedStatement((db) => {
  const k = idempotencyKeys;
  return db
    .update(k)
    .set({
      status: sql`${sql.placeholder('status')}`,
      // Passed as JSON text: a raw placeholder gets no column encoder.
      result: sql`${sql.placeholder('result')}::jsonb`,
      errorClass: sql`${sql.placeholder('errorClass')}`,
      errorText: sql`${sql.placeholder('errorText')}`,
      lockedUntil: null,
      updatedAt: sql`now()`,
      // Kept for the claim's retention from now, the key's last change: a duplicate arriving
      // within the retry horizon after the settle still gets the stored outcome.
      expiresAt: expiresAfterRetentionSql(),
    })
    .where(
      and(
        eq(k.key, sql.placeholder('key')),
        eq(k.fencingToken, sql.placeholder('fencingToken')),
        eq(k.status, 'in_progress'),
        // A fencing token is a small number anyone may guess: the key is settled only by the API token
        // whose claim holds it (in-process callers carry none, and are trusted with their own keys).
        sql`(${k.begunBy} is null or ${sql.placeholder('settledBy')}::text is null or ${k.begunBy} = ${sql.placeholder('settledBy')}::text)`,
        // A failure reported after the claim expired cannot make a non-deduplicating step safe
        // to repeat: by then its outcome is uncertain (and held for a person), so it stays so.
        sql`(${sql.placeholder('status')} <> 'failed' or ${k.downstreamIdempotent} or ${k.lockedUntil} > now())`,
      ),
    )
    .returning({ key: k.key })
    .prepare('settle_key');
});

async function settle(
  ctx: CoreContext,
  key: string,
  fencingToken: number,
  outcome: Pick<typeof idempotencyKeys.$inferInsert, 'status' | 'result' | 'errorClass' | 'errorText'>,
): Promise<void> {
  const k = idempotencyKeys;
  await enforceTokenLimits(ctx, () => targetOfKey(ctx.db, key));
  const settled = await settleStatement(ctx.db).execute({
    ...outcome,
    result: JSON.stringify(outcome.result ?? null),
    key,
    fencingToken,
    settledBy: ctx.actor?.id ?? null,
  });
  if (settled.length === 1) return;

  const [current] = await ctx.db
    .select({ status: k.status, fencingToken: k.fencingToken, begunBy: k.begunBy })
    .from(k)
    .where(eq(k.key, key));
  if (!current) throw new NotFoundError(`Key "${key}" does not exist (it may have expired and been swept)`);
  if (current.status === 'in_progress' && ctx.actor && current.begunBy !== null && current.begunBy !== ctx.actor.id) {
    throw new ForbiddenError(
      `${ctx.actor.type}:${ctx.actor.id} may not settle key "${key}": another API token's claim holds it`,
    );
  }
  if (current.status === 'in_progress' && current.fencingToken === fencingToken && outcome.status === 'failed') {
    throw new StateConflictError(
      `Key "${key}" was in progress past its expiry and its downstream cannot deduplicate: its outcome is uncertain and stays held for a person`,
    );
  }
  throw new StaleTokenError(
    current.fencingToken !== fencingToken
      ? `Key "${key}" was taken over (token ${current.fencingToken} is current, not ${fencingToken}); this holder must stop`
      : `Key "${key}" is already ${current.status}`,
  );
}
