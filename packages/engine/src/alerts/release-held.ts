import { and, eq, not } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { alertInstances } from '../db/schema';
import { queueFired } from './fire-instance';
import { instanceColumns, isSilenced } from '../db/alert-silence-match';

/**
 * Sends the notifications silences held back, for alerts that still fire once no silence matches them (the
 * silence ran out or was ended): on-call hears about a fire that outlived its silence, as Alertmanager does.
 * An alert that resolved while silenced is never sent, fired or resolved. Each release clears the alert's
 * `notification_held` in the same transaction that queues it, so two passes at once send it once.
 */
export async function releaseHeldNotifications(db: Executor, now: Date): Promise<{ released: number; queued: number }> {
  const due = await db
    .select({ id: alertInstances.id, team: alertInstances.team })
    .from(alertInstances)
    .where(
      and(
        eq(alertInstances.status, 'firing'),
        eq(alertInstances.notificationHeld, true),
        not(isSilenced(instanceColumns, now)),
      ),
    );
  const result = { released: 0, queued: 0 };
  for (const alert of due) {
    const queued = await db.transaction(async (tx) => {
      const [taken] = await tx
        .update(alertInstances)
        .set({ notificationHeld: false })
        .where(
          and(
            eq(alertInstances.id, alert.id),
            eq(alertInstances.status, 'firing'),
            eq(alertInstances.notificationHeld, true),
          ),
        )
        .returning({ id: alertInstances.id });
      if (!taken) return undefined;
      return queueFired(tx, alert.id, alert.team, now);
    });
    if (queued === undefined) continue;
    result.released += 1;
    result.queued += queued;
  }
  return result;
}
