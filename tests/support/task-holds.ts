import { randomUUID } from 'node:crypto';
import type { Actor } from '../../packages/engine/src/core';
import { ensureTaskBudget } from '../../packages/engine/src/core/budgets/task-budget';
import { openHold } from '../../packages/engine/src/core/holds/open-hold';
import type { Database } from '../../packages/engine/src/db/client';

/** An open needs-approval hold on a fresh payments task, owned by `owner`, opened by `agent`. */
export async function openTaskHold(db: Database, agent: Actor, owner: string, detail = 'approve the refund') {
  const taskId = `task-${randomUUID()}`;
  await ensureTaskBudget(db, { taskId, agent: 'payments', owner });
  const { hold } = await openHold(
    { db, actor: agent },
    { itemType: 'task', itemId: taskId, reason: 'needs_approval', detail, owner },
  );
  return hold;
}
