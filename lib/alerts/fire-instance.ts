import { and, eq, isNull, or, sql } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { alertChannels, alertDeliveries, alertInstances, type AlertKind } from '../db/schema';
import type { AlertCondition } from './conditions';

/**
 * Fires one instance and queues it for every live, enabled channel its team
 * reaches, in the caller's transaction or one of its own; undefined when
 * another pass fired the same identity first (the partial unique index on
 * kind and identity decides). `members`: the identities a coalesced
 * notification stands for (hold-digests.ts), absent for one that stands alone.
 */
export async function fireInstance(
  db: Executor,
  kind: AlertKind,
  condition: AlertCondition,
  now: Date,
  members?: string[],
): Promise<number | undefined> {
  return db.transaction(async (tx) => {
    const [instance] = await tx
      .insert(alertInstances)
      .values({ kind, ...condition, members: members ?? null, status: 'firing', firedAt: now })
      .onConflictDoNothing({
        target: [alertInstances.kind, alertInstances.identity],
        where: sql`${alertInstances.status} = 'firing'`,
      })
      .returning({ id: alertInstances.id });
    if (!instance) return undefined;
    // A channel with a team hears only that team's alerts; one without hears them all.
    const reaches = condition.team
      ? or(isNull(alertChannels.team), eq(alertChannels.team, condition.team))
      : isNull(alertChannels.team);
    const channels = await tx
      .select({ id: alertChannels.id })
      .from(alertChannels)
      .where(and(isNull(alertChannels.deletedAt), eq(alertChannels.enabled, true), reaches));
    if (channels.length === 0) return 0;
    const queued = await tx
      .insert(alertDeliveries)
      .values(
        channels.map((channel) => ({
          instanceId: instance.id,
          event: 'fired' as const,
          channelId: channel.id,
          nextAttemptAt: now,
        })),
      )
      .onConflictDoNothing()
      .returning({ id: alertDeliveries.id });
    return queued.length;
  });
}
