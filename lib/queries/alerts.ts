import 'server-only';
import { count, desc, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../db/client';
import {
  alertChannels,
  alertDeliveries,
  alertDeliveryAttempts,
  alertInstances,
  alertKinds,
  alertRules,
  type AlertChannelKind,
  type AlertEvent,
  type AlertInstance,
  type AlertRule,
} from '../db/schema';

/** Every alert rule, in the order the kinds are declared. */
export async function listAlertRules(db: Executor): Promise<AlertRule[]> {
  const rules = await db.select().from(alertRules);
  return rules.sort((a, b) => alertKinds.indexOf(a.kind) - alertKinds.indexOf(b.kind));
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** A channel as the console shows it: its URL's hint, never the URL or the signing secret. */
export interface AlertChannelRow {
  id: number;
  name: string;
  kind: AlertChannelKind;
  urlHint: string;
  team: string | null;
  enabled: boolean;
  failingSince: Date | null;
  failingReason: string | null;
  createdAt: Date;
  createdBy: string;
  lastDelivery: { status: DeliveryStatus; event: AlertEvent; createdAt: Date; lastError: string | null } | null;
}

/** Live (not deleted) channels by name, each with its latest delivery's status. */
export async function listAlertChannels(db: Executor): Promise<AlertChannelRow[]> {
  // Columns named one by one: the URL and the secret never leave the database through this read model.
  const channels = await db
    .select({
      id: alertChannels.id,
      name: alertChannels.name,
      kind: alertChannels.kind,
      urlHint: alertChannels.urlHint,
      team: alertChannels.team,
      enabled: alertChannels.enabled,
      failingSince: alertChannels.failingSince,
      failingReason: alertChannels.failingReason,
      createdAt: alertChannels.createdAt,
      createdBy: alertChannels.createdBy,
    })
    .from(alertChannels)
    .where(isNull(alertChannels.deletedAt))
    .orderBy(alertChannels.name);
  if (channels.length === 0) return [];
  const latest = await db
    .selectDistinctOn([alertDeliveries.channelId], {
      channelId: alertDeliveries.channelId,
      status: alertDeliveries.status,
      event: alertDeliveries.event,
      createdAt: alertDeliveries.createdAt,
      lastError: alertDeliveries.lastError,
    })
    .from(alertDeliveries)
    .where(
      inArray(
        alertDeliveries.channelId,
        channels.map((channel) => channel.id),
      ),
    )
    .orderBy(alertDeliveries.channelId, desc(alertDeliveries.id));
  const byChannel = new Map(latest.map(({ channelId, ...delivery }) => [channelId, delivery]));
  return channels.map((channel) => ({ ...channel, lastDelivery: byChannel.get(channel.id) ?? null }));
}

export interface DeliveryAttemptRow {
  id: number;
  attemptedAt: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface DeliveryRow {
  id: number;
  /** Null for a test sent from the console. */
  instanceId: number | null;
  eventId: string;
  event: AlertEvent;
  channelId: number;
  channelName: string;
  channelDeleted: boolean;
  status: DeliveryStatus;
  attempts: number;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
  /** The latest tries, newest first (at most ATTEMPTS_SHOWN). */
  attemptLog: DeliveryAttemptRow[];
}

export interface AlertHistoryEntry extends AlertInstance {
  deliveries: DeliveryRow[];
}

export interface AlertHistory {
  instances: AlertHistoryEntry[];
  /** Every alert instance there is: the page says "showing N of M". */
  totalInstances: number;
  /** Test notifications sent from the console, newest first. */
  tests: DeliveryRow[];
  totalTests: number;
}

/** How many of a delivery's tries the history shows. */
export const ATTEMPTS_SHOWN = 10;

async function readDeliveries(db: Executor, where: SQL | undefined, limit?: number): Promise<DeliveryRow[]> {
  const query = db
    .select({
      id: alertDeliveries.id,
      instanceId: alertDeliveries.instanceId,
      eventId: alertDeliveries.eventId,
      event: alertDeliveries.event,
      channelId: alertDeliveries.channelId,
      channelName: alertChannels.name,
      channelDeleted: sql<boolean>`${alertChannels.deletedAt} is not null`,
      status: alertDeliveries.status,
      attempts: alertDeliveries.attempts,
      lastError: alertDeliveries.lastError,
      createdAt: alertDeliveries.createdAt,
      deliveredAt: alertDeliveries.deliveredAt,
    })
    .from(alertDeliveries)
    .innerJoin(alertChannels, eq(alertChannels.id, alertDeliveries.channelId))
    .where(where)
    .orderBy(desc(alertDeliveries.id));
  const deliveries = limit === undefined ? await query : await query.limit(limit);
  if (deliveries.length === 0) return [];
  const attempts = await db.execute<{
    id: number;
    delivery_id: number;
    attempted_at: string;
    status_code: number | null;
    error: string | null;
    duration_ms: number;
  }>(sql`
    select id, delivery_id, attempted_at, status_code, error, duration_ms from (
      select *, row_number() over (partition by delivery_id order by id desc) as newest
      from ${alertDeliveryAttempts}
      where delivery_id in ${sql`(${sql.join(
        deliveries.map((delivery) => sql`${delivery.id}`),
        sql`, `,
      )})`}
    ) tries
    where newest <= ${ATTEMPTS_SHOWN}
    order by delivery_id, id desc`);
  const byDelivery = new Map<number, DeliveryAttemptRow[]>();
  for (const row of attempts) {
    const list = byDelivery.get(Number(row.delivery_id)) ?? [];
    list.push({
      id: Number(row.id),
      attemptedAt: new Date(row.attempted_at),
      statusCode: row.status_code === null ? null : Number(row.status_code),
      error: row.error,
      durationMs: Number(row.duration_ms),
    });
    byDelivery.set(Number(row.delivery_id), list);
  }
  return deliveries.map((delivery) => ({
    ...delivery,
    attemptLog: byDelivery.get(delivery.id) ?? [],
  }));
}

/**
 * The newest alert instances (fired or resolved) with each notification sent
 * for them, its status and its tries; and the console's test notifications.
 */
export async function getAlertHistory(
  db: Executor,
  { limit = 50, testLimit = 20 }: { limit?: number; testLimit?: number } = {},
): Promise<AlertHistory> {
  const [instances, [instanceTotal], [testTotal]] = await Promise.all([
    db.select().from(alertInstances).orderBy(desc(alertInstances.firedAt), desc(alertInstances.id)).limit(limit),
    db.select({ n: count() }).from(alertInstances),
    db.select({ n: count() }).from(alertDeliveries).where(isNull(alertDeliveries.instanceId)),
  ]);
  const [deliveries, tests] = await Promise.all([
    instances.length === 0
      ? Promise.resolve([])
      : readDeliveries(
          db,
          inArray(
            alertDeliveries.instanceId,
            instances.map((instance) => instance.id),
          ),
        ),
    readDeliveries(db, isNull(alertDeliveries.instanceId), testLimit),
  ]);
  const byInstance = new Map<number, DeliveryRow[]>();
  for (const delivery of deliveries) {
    if (delivery.instanceId === null) continue;
    const list = byInstance.get(delivery.instanceId) ?? [];
    list.push(delivery);
    byInstance.set(delivery.instanceId, list);
  }
  return {
    instances: instances.map((instance) => ({
      ...instance,
      // Oldest first within an instance: "fired" before "resolved".
      deliveries: (byInstance.get(instance.id) ?? []).sort((a, b) => a.id - b.id),
    })),
    totalInstances: instanceTotal?.n ?? 0,
    tests,
    totalTests: testTotal?.n ?? 0,
  };
}

/** Alert instances firing now (the sidebar's badge and the page's summary). */
export async function countFiringAlerts(db: Executor): Promise<number> {
  const [row] = await db.select({ n: count() }).from(alertInstances).where(eq(alertInstances.status, 'firing'));
  return row?.n ?? 0;
}
