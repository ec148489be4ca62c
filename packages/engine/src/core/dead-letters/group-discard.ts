import { asc } from 'drizzle-orm';
import type { z } from 'zod';
import { deadLetters } from '../../db/schema';
import { authorize } from '../identity/authorization';
import type { CoreContext } from '../kernel/context';
import { StateConflictError } from '@holdfast/protocol/errors';
import { parseInput } from '@holdfast/protocol/validation';
import { deadLetterFilter, pendingMatching } from './dead-letter-filter';
import { discardGroupInput } from './group-discard-input';
import { clearOpenHold, discardInTransaction } from './redrive';

export { discardGroupInput, GROUP_DISCARD_LIMIT } from './group-discard-input';

/**
 * Gives up every pending dead letter of one error group, with one reason: a cause known to be permanent (an
 * address that will never be valid) need not be discarded row by row. All or nothing, in one transaction: each
 * dead letter is discarded and audited as a single discard is, its open hold cleared. The dead letters are locked
 * first and counted; when the count is not the one the person confirmed (letters arrived, or someone acted on
 * some), nothing is discarded and the person is asked to look again.
 */
export async function discardErrorGroup(
  ctx: CoreContext,
  input: z.input<typeof discardGroupInput>,
): Promise<{ discarded: number }> {
  const actor = authorize(ctx, 'dead_letter.discard');
  const { group, reason, expectedCount } = parseInput(discardGroupInput, input);
  return ctx.db.transaction(async (tx) => {
    const pending = await tx
      .select()
      .from(deadLetters)
      .where(pendingMatching(deadLetterFilter.parse({ group })))
      .orderBy(asc(deadLetters.id))
      .limit(expectedCount + 1)
      .for('update');
    if (pending.length !== expectedCount) {
      const now = pending.length > expectedCount ? `more than ${expectedCount}` : String(pending.length);
      throw new StateConflictError(
        `This group has ${now} pending dead letters now, not the ${expectedCount} confirmed; nothing was discarded. Look at the group again.`,
      );
    }
    for (const deadLetter of pending) {
      await discardInTransaction(tx, actor, deadLetter, reason);
      await clearOpenHold(tx, actor, deadLetter.id, 'discard', reason);
    }
    return { discarded: pending.length };
  });
}
