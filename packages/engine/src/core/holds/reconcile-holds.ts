import { and, eq, sql, type SQL } from 'drizzle-orm';
import { finishedTaskStatuses, holds, type HoldItemType, type HoldReason } from '../../db/schema';
import { writeAudit } from '../audit/audit-log';
import { SWEEPER, type CoreContext } from '../kernel/context';
import { clearedHoldColumns } from './cleared-hold';

/**
 * A kind of hold whose condition can clear by itself: while `cleared` (SQL
 * about the open hold's row) is true, no person has anything left to decide.
 * `note` is SQL too, so the scan can say when and how the condition cleared.
 */
interface SelfClearingCondition {
  itemType: HoldItemType;
  reason: HoldReason;
  cleared: SQL;
  note: SQL;
}

const selfClearingConditions: SelfClearingCondition[] = [
  {
    // The holder outlived its claim but did report success in the end: the outcome is known.
    itemType: 'key',
    reason: 'uncertain_outcome',
    cleared: sql`exists (select 1 from idempotency_keys held_key where held_key.key = ${holds.itemId} and held_key.status = 'completed')`,
    note: sql`'The key completed on its own at ' || (select to_char(held_key.updated_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"')
      from idempotency_keys held_key where held_key.key = ${holds.itemId}) || ' (its holder reported back late): the outcome is known, nothing to check'`,
  },
  {
    // A finished task does no more work, so there is nothing to resume or discard.
    itemType: 'task',
    reason: 'frozen',
    cleared: sql`exists (select 1 from task_budgets held_task where held_task.task_id = ${holds.itemId} and held_task.status in ${finishedTaskStatuses})`,
    note: sql`(select 'The task was finished as ' || held_task.status || coalesce(' at ' || to_char(held_task.finished_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"'), '')
      || ': it does no more work, so nothing is left to resume' from task_budgets held_task where held_task.task_id = ${holds.itemId})`,
  },
  {
    // The lock the sweeper kept refusing was released (by its holder or a person) or taken by a new holder.
    itemType: 'slot',
    reason: 'stale_lock',
    cleared: sql`exists (select 1 from slot_locks held_lock where held_lock.slot = ${holds.itemId}
      and (held_lock.released_at is not null or held_lock.escalated_at is null))`,
    note: sql`(select case when held_lock.released_at is not null
        then 'The lock was released at ' || to_char(held_lock.released_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"') || coalesce(' by ' || held_lock.released_by, '')
        else 'A new holder took the slot' end || ': nothing is left stuck' from slot_locks held_lock where held_lock.slot = ${holds.itemId})`,
  },
];

export interface ReconciledHold {
  holdId: number;
  itemType: HoldItemType;
  itemId: string;
  note: string;
}

/**
 * Closes open holds whose condition cleared by itself (see
 * selfClearingConditions), as `resolved` by the sweeper, each with its audit
 * record in the same transaction. The close is guarded on the hold still
 * being open and the condition still holding, so however often (or however
 * concurrently) this runs, a hold is resolved once. A person's clear stays
 * resume or discard: `resolved` is the sweeper's word only.
 */
export async function reconcileHolds(ctx: CoreContext, options: { limit?: number } = {}): Promise<ReconciledHold[]> {
  const actor = ctx.actor ?? SWEEPER;
  const reconciled: ReconciledHold[] = [];
  for (const condition of selfClearingConditions) {
    const isSelfCleared = and(
      eq(holds.status, 'open'),
      eq(holds.itemType, condition.itemType),
      eq(holds.reason, condition.reason),
      condition.cleared,
    );
    const candidates = await ctx.db
      .select({ id: holds.id, itemId: holds.itemId, owner: holds.owner, note: sql<string>`${condition.note}` })
      .from(holds)
      .where(isSelfCleared)
      .orderBy(holds.id)
      .limit(options.limit ?? 500);

    for (const candidate of candidates) {
      const closed = await ctx.db.transaction(async (tx) => {
        const [resolved] = await tx
          .update(holds)
          .set(clearedHoldColumns('resolved', candidate.note, actor))
          .where(and(eq(holds.id, candidate.id), isSelfCleared))
          .returning({ id: holds.id });
        if (!resolved) return false; // a person cleared it, or the sweep ran twice at once
        await writeAudit(tx, actor, {
          action: 'hold.resolve',
          targetType: 'hold',
          targetId: String(candidate.id),
          reason: candidate.note,
          before: { status: 'open', owner: candidate.owner },
          after: { status: 'cleared', resolution: 'resolved' },
        });
        return true;
      });
      if (closed)
        reconciled.push({
          holdId: candidate.id,
          itemType: condition.itemType,
          itemId: candidate.itemId,
          note: candidate.note,
        });
    }
  }
  return reconciled;
}
