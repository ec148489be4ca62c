import { and, eq, inArray, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { alertInstances } from '../db/schema';

/**
 * The steps of a firing alert's life between firing and resolving, one guarded UPDATE each, so two evaluation
 * passes at once take each step once: the second finds the row already moved on and changes nothing.
 */

/** Its condition held in this pass: seen now (`last_seen_at` never moves back). */
export async function markSeen(db: Executor, instanceIds: number[], now: Date): Promise<void> {
  if (instanceIds.length === 0) return;
  await db
    .update(alertInstances)
    .set({ lastSeenAt: sql`greatest(${alertInstances.lastSeenAt}, ${now.toISOString()}::timestamptz)` })
    .where(and(inArray(alertInstances.id, instanceIds), eq(alertInstances.status, 'firing')));
}

/** Its condition stopped holding: cleared now, still firing until it has stayed clear for the quiet time. */
export async function markCleared(db: Executor, instanceId: number, now: Date): Promise<void> {
  await db
    .update(alertInstances)
    .set({ clearedAt: now })
    .where(
      and(eq(alertInstances.id, instanceId), eq(alertInstances.status, 'firing'), isNull(alertInstances.clearedAt)),
    );
}

/**
 * Its condition came back before the alert resolved: the same alert fired again, counted on it (nothing is sent).
 * True when this pass counted it, false when another pass did first.
 */
export async function markReturned(db: Executor, instanceId: number, now: Date): Promise<boolean> {
  const returned = await db
    .update(alertInstances)
    .set({
      clearedAt: null,
      fireCount: sql`${alertInstances.fireCount} + 1`,
      lastSeenAt: sql`greatest(${alertInstances.lastSeenAt}, ${now.toISOString()}::timestamptz)`,
    })
    .where(
      and(eq(alertInstances.id, instanceId), eq(alertInstances.status, 'firing'), isNotNull(alertInstances.clearedAt)),
    )
    .returning({ id: alertInstances.id });
  return returned.length > 0;
}

/**
 * Resolves one firing instance and tells the channels that were told it fired
 * (those still live and enabled), so every receiver sees a pair; undefined
 * when another pass resolved it first. `clearedBy`: resolve only if it is
 * still cleared, since then (a pass that saw it come back wins).
 */
export async function resolveInstance(
  db: Executor,
  instanceId: number,
  now: Date,
  clearedBy?: Date,
): Promise<number | undefined> {
  return db.transaction(async (tx) => {
    const [instance] = await tx
      .update(alertInstances)
      .set({ status: 'resolved', resolvedAt: now })
      .where(
        and(
          eq(alertInstances.id, instanceId),
          eq(alertInstances.status, 'firing'),
          clearedBy ? lte(alertInstances.clearedAt, clearedBy) : undefined,
        ),
      )
      .returning({ id: alertInstances.id });
    if (!instance) return undefined;
    const queued = await tx.execute(sql`
      insert into alert_deliveries (instance_id, event, channel_id, next_attempt_at)
      select fired.instance_id, 'resolved', fired.channel_id, ${now.toISOString()}::timestamptz
      from alert_deliveries fired
      join alert_channels channel on channel.id = fired.channel_id
      where fired.instance_id = ${instanceId} and fired.event = 'fired'
        and channel.deleted_at is null and channel.enabled
      on conflict do nothing
      returning id`);
    return queued.length;
  });
}
