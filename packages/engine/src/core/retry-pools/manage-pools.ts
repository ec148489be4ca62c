import { and, eq } from 'drizzle-orm';
import { retryPools, type RetryPool } from '../../db/schema';
import { auditTrail } from '../audit/audit-trail';
import { authorize } from '../identity/authorization';
import { actorLabel, nowOf, type CoreContext } from '../kernel/context';
import { parseInput } from '@holdfast/protocol/validation';
import {
  deleteRetryPoolInput,
  saveRetryPoolInput,
  type DeleteRetryPoolInput,
  type SaveRetryPoolInput,
  type SaveRetryPoolRequest,
} from './manage-pools-input';

export interface SaveRetryPoolResult {
  /** False when the pool already had these values: nothing was written, no audit record. */
  changed: boolean;
  /** True when this call made the pool. */
  created: boolean;
  pool: RetryPool;
}

/** What an audit record keeps of a pool: its identity and the values a person set. */
function poolSettings(pool: RetryPool) {
  return {
    id: pool.id,
    agent: pool.agent,
    step: pool.step,
    budgetPercent: pool.budgetPercent,
    minRetriesPerSecond: pool.minRetriesPerSecond,
    windowSeconds: pool.windowSeconds,
  };
}

const sameSettings = (pool: RetryPool, request: SaveRetryPoolRequest) =>
  pool.budgetPercent === request.budgetPercent &&
  pool.minRetriesPerSecond === request.minRetriesPerSecond &&
  pool.windowSeconds === request.windowSeconds;

const poolTarget = (pool: Pick<RetryPool, 'agent' | 'step'>) => `${pool.agent}/${pool.step}`;
const poolAudit = auditTrail('retry_pool', poolTarget, poolSettings);

/**
 * Creates the retry pool of (agent, step), or changes its budget, floor and
 * window; admins only, with a reason, audit-logged in the same transaction.
 * Saving the values a pool already has changes nothing and writes no audit
 * record, so a double submit is harmless. The pool's row is locked while it is
 * compared and changed, as the step engine locks it to take a retry.
 */
export async function saveRetryPool(ctx: CoreContext, input: SaveRetryPoolInput): Promise<SaveRetryPoolResult> {
  const actor = authorize(ctx, 'retry_pool.manage');
  const request = parseInput(saveRetryPoolInput, input);
  const now = nowOf(ctx);
  const settings = {
    budgetPercent: request.budgetPercent,
    minRetriesPerSecond: request.minRetriesPerSecond,
    windowSeconds: request.windowSeconds,
  };
  return ctx.db.transaction(async (tx) => {
    const readExisting = async () =>
      (
        await tx
          .select()
          .from(retryPools)
          .where(and(eq(retryPools.agent, request.agent), eq(retryPools.step, request.step)))
          .for('update')
      )[0];
    let before = await readExisting();
    if (!before) {
      const [created] = await tx
        .insert(retryPools)
        .values({
          agent: request.agent,
          step: request.step,
          ...settings,
          createdAt: now,
          updatedAt: now,
          updatedBy: actorLabel(actor),
        })
        .onConflictDoNothing({ target: [retryPools.agent, retryPools.step] })
        .returning();
      if (created) {
        await poolAudit(tx, actor, 'retry_pool.save', { reason: request.reason, after: created });
        return { changed: true, created: true, pool: created };
      }
      // Another save created it between our read and our insert: it is now an update.
      before = await readExisting();
      if (!before) throw new Error('saveRetryPool: the pool vanished while it was being saved');
    }
    if (sameSettings(before, request)) return { changed: false, created: false, pool: before };
    const [updated] = await tx
      .update(retryPools)
      .set({ ...settings, updatedAt: now, updatedBy: actorLabel(actor) })
      .where(eq(retryPools.id, before.id))
      .returning();
    if (!updated) throw new Error('saveRetryPool: update returned no row');
    await poolAudit(tx, actor, 'retry_pool.save', { reason: request.reason, before, after: updated });
    return { changed: true, created: false, pool: updated };
  });
}

/**
 * Deletes a retry pool: its agent or step is then limited by the tasks'
 * allowances alone. Admins only, with a reason, audit-logged in the same
 * transaction. Deleting a pool that is already gone answers changed: false.
 */
export async function deleteRetryPool(ctx: CoreContext, input: DeleteRetryPoolInput): Promise<{ changed: boolean }> {
  const actor = authorize(ctx, 'retry_pool.manage');
  const { poolId, reason } = parseInput(deleteRetryPoolInput, input);
  return ctx.db.transaction(async (tx) => {
    const [deleted] = await tx.delete(retryPools).where(eq(retryPools.id, poolId)).returning();
    if (!deleted) return { changed: false };
    await poolAudit(tx, actor, 'retry_pool.delete', { reason, before: deleted });
    return { changed: true };
  });
}
