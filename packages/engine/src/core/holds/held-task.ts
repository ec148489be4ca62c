import { eq, sql } from 'drizzle-orm';
import { taskBudgets } from '../../db/schema';
import type { HeldItem } from './held-item';

/** A held task: resuming makes it active again, discarding gives it up. An owner needs nothing more. */
export const heldTask: HeldItem = {
  action: () => undefined,
  async resolve(tx, _actor, hold) {
    const resume = hold.resolution === 'resume';
    await tx
      .update(taskBudgets)
      .set({ status: resume ? 'active' : 'discarded', updatedAt: sql`now()` })
      .where(eq(taskBudgets.taskId, hold.itemId));
    return resume ? 'task active again' : 'task discarded';
  },
};
