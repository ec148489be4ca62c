import { and, eq, isNull, or, sql } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { alertChannels, alertDeliveries, alertInstances, type AlertKind } from '../db/schema';
import type { AlertCondition } from './conditions';
import { matchingSilenceId } from '../db/alert-silence-match';

/**
 * Fires one instance and queues it for every live, enabled channel its team
 * reaches, in the caller's transaction or one of its own; undefined when
 * another pass fired the same identity first (the partial unique index on
 * kind and identity decides). `members`: the identities a coalesced
 * notification stands for (hold-digests.ts), absent for one that stands alone.
 * An instance a silence matches is recorded with that silence and its
 * notification held back (0 queued): release-held.ts sends it if it still
 * fires once no silence matches.
 */
export async function fireInstance(
  db: Executor,
  kind: AlertKind,
  condition: AlertCondition,
  now: Date,
  members?: string[],
): Promise<number | undefined> {
  // What the condition is about routed it (routeToOwners); the instance keeps the team it was routed to.
  const { about: _routedBy, ...stored } = condition;
  return db.transaction(async (tx) => {
    const silenceId = await silenceMatchingNew(tx, kind, condition, now);
    const [instance] = await tx
      .insert(alertInstances)
      .values({
        kind,
        ...stored,
        members: members ?? null,
        status: 'firing',
        firedAt: now,
        lastSeenAt: now,
        silencedBy: silenceId,
        notificationHeld: silenceId !== null,
      })
      .onConflictDoNothing({
        target: [alertInstances.kind, alertInstances.identity],
        where: sql`${alertInstances.status} = 'firing'`,
      })
      .returning({ id: alertInstances.id });
    if (!instance) return undefined;
    if (silenceId !== null) return 0;
    return queueFired(tx, instance.id, condition.team, now);
  });
}

/** The silence in force that matches an alert about to fire, or null. */
async function silenceMatchingNew(
  tx: Executor,
  kind: AlertKind,
  condition: AlertCondition,
  now: Date,
): Promise<number | null> {
  const alert = {
    kind: sql`${kind}::text`,
    identity: sql`${condition.identity}::text`,
    team: sql`${condition.team}::text`,
  };
  const [row] = await tx.execute<{ id: string | null }>(sql`select ${matchingSilenceId(alert, now)} as id`);
  return row?.id == null ? null : Number(row.id);
}

/** Queues an instance's firing for every live, enabled channel its team reaches; how many rows were queued. */
export async function queueFired(tx: Executor, instanceId: number, team: string | null, now: Date): Promise<number> {
  // A channel with a team hears only that team's alerts; one without hears them all.
  const reaches = team ? or(isNull(alertChannels.team), eq(alertChannels.team, team)) : isNull(alertChannels.team);
  const channels = await tx
    .select({ id: alertChannels.id })
    .from(alertChannels)
    .where(and(isNull(alertChannels.deletedAt), eq(alertChannels.enabled, true), reaches));
  if (channels.length === 0) return 0;
  const queued = await tx
    .insert(alertDeliveries)
    .values(
      channels.map((channel) => ({
        instanceId,
        event: 'fired' as const,
        channelId: channel.id,
        nextAttemptAt: now,
      })),
    )
    .onConflictDoNothing()
    .returning({ id: alertDeliveries.id });
  return queued.length;
}
