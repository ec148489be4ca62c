import 'server-only';
import { count, desc, eq, getTableColumns, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import { instanceColumns, matchingSilenceId } from '@holdfast/engine/db';
import type { Executor } from '@holdfast/engine/db';
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
  type AlertSilence,
} from '@holdfast/engine/db/schema';
import { readSilencesById } from './alert-silences';

/** Every alert rule, in the order the kinds are declared. */
export async function listAlertRules(db: Executor): Promise<AlertRule[]> {
  const rules = await db.select().from(alertRules);
  return rules.sort((a, b) => alertKinds.indexOf(a.kind) - alertKinds.indexOf(b.kind));
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/**
 * What a try came to, in words anyone may read. The History tab is readable by
 * every role, and a try's own error ("connect ECONNREFUSED", "HTTP 401", "bad
 * port") is enough to map what answers inside the network; so only admins,
 * who make the channels, get the detail (`detail: true`), and everyone else
 * this.
 */
export const deliveryOutcomes = [
  'delivered',
  'refused_by_receiver',
  'receiver_error',
  'unreachable',
  'refused_by_policy',
] as const;
export type DeliveryOutcome = (typeof deliveryOutcomes)[number];

/** A try's outcome from its stored status and policy mark; a redirect is refused by policy (it is never followed). */
export function deliveryOutcomeOf(attempt: { statusCode: number | null; refusedByPolicy: boolean }): DeliveryOutcome {
  const { statusCode } = attempt;
  if (attempt.refusedByPolicy) return 'refused_by_policy';
  if (statusCode === null) return 'unreachable';
  if (statusCode >= 200 && statusCode < 300) return 'delivered';
  if (statusCode >= 300 && statusCode < 400) return 'refused_by_policy';
  if (statusCode >= 400 && statusCode < 500) return 'refused_by_receiver';
  return 'receiver_error';
}

/** Whether a read model includes each try's error text, status code and duration (admins), or outcomes only. */
export interface DetailOption {
  detail?: boolean;
}

/** A channel as the console shows it: its URL's hint, never the URL or the signing secret. */
export interface AlertChannelRow {
  id: number;
  name: string;
  kind: AlertChannelKind;
  urlHint: string;
  team: string | null;
  enabled: boolean;
  failingSince: Date | null;
  /** Why it is failing: admins only (null otherwise). */
  failingReason: string | null;
  createdAt: Date;
  createdBy: string;
  lastDelivery: {
    status: DeliveryStatus;
    event: AlertEvent;
    createdAt: Date;
    /** Admins only (null otherwise). */
    lastError: string | null;
    /** Its latest try's outcome; null before the first try. */
    outcome: DeliveryOutcome | null;
  } | null;
}

/** Live (not deleted) channels by name, each with its latest delivery's status. */
export async function listAlertChannels(
  db: Executor,
  { detail = false }: DetailOption = {},
): Promise<AlertChannelRow[]> {
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
      // alert_deliveries.id written out: drizzle would write the outer column unqualified, which a.id would shadow.
      lastStatusCode: sql<number | null>`(select a.status_code from ${alertDeliveryAttempts} a
        where a.delivery_id = alert_deliveries.id order by a.id desc limit 1)`,
      lastRefusedByPolicy: sql<boolean | null>`(select a.refused_by_policy from ${alertDeliveryAttempts} a
        where a.delivery_id = alert_deliveries.id order by a.id desc limit 1)`,
    })
    .from(alertDeliveries)
    .where(
      inArray(
        alertDeliveries.channelId,
        channels.map((channel) => channel.id),
      ),
    )
    .orderBy(alertDeliveries.channelId, desc(alertDeliveries.id));
  const byChannel = new Map(
    latest.map(({ channelId, lastStatusCode, lastRefusedByPolicy, lastError, ...delivery }) => [
      channelId,
      {
        ...delivery,
        lastError: detail ? lastError : null,
        outcome:
          lastRefusedByPolicy === null
            ? null
            : deliveryOutcomeOf({
                statusCode: lastStatusCode === null ? null : Number(lastStatusCode),
                refusedByPolicy: lastRefusedByPolicy,
              }),
      },
    ]),
  );
  return channels.map((channel) => ({
    ...channel,
    failingReason: detail ? channel.failingReason : null,
    lastDelivery: byChannel.get(channel.id) ?? null,
  }));
}

export interface DeliveryAttemptRow {
  id: number;
  attemptedAt: Date;
  outcome: DeliveryOutcome;
  /** Admins only (null otherwise), as are the error and the duration. */
  statusCode: number | null;
  error: string | null;
  durationMs: number | null;
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
  /** Admins only (null otherwise). */
  lastError: string | null;
  /** The latest try's outcome; null before the first try (or when none was made: a deleted channel's row). */
  outcome: DeliveryOutcome | null;
  createdAt: Date;
  deliveredAt: Date | null;
  /** The latest tries, newest first (at most ATTEMPTS_SHOWN). */
  attemptLog: DeliveryAttemptRow[];
}

export interface AlertHistoryEntry extends AlertInstance {
  deliveries: DeliveryRow[];
  /** The silence in force that matches it now, if it still fires (the longest-lasting). */
  silenceNow: AlertSilence | null;
  /** The silence that held back its notification when it fired, if any (kept after that silence ends). */
  silenceAtFiring: AlertSilence | null;
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

async function readDeliveries(
  db: Executor,
  where: SQL | undefined,
  { limit, detail }: { limit?: number; detail: boolean },
): Promise<DeliveryRow[]> {
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
    refused_by_policy: boolean;
    duration_ms: number;
  }>(sql`
    select id, delivery_id, attempted_at, status_code, error, refused_by_policy, duration_ms from (
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
    const statusCode = row.status_code === null ? null : Number(row.status_code);
    list.push({
      id: Number(row.id),
      attemptedAt: new Date(row.attempted_at),
      outcome: deliveryOutcomeOf({ statusCode, refusedByPolicy: row.refused_by_policy }),
      statusCode: detail ? statusCode : null,
      error: detail ? row.error : null,
      durationMs: detail ? Number(row.duration_ms) : null,
    });
    byDelivery.set(Number(row.delivery_id), list);
  }
  return deliveries.map((delivery) => {
    const attemptLog = byDelivery.get(delivery.id) ?? [];
    return {
      ...delivery,
      lastError: detail ? delivery.lastError : null,
      outcome: attemptLog[0]?.outcome ?? null,
      attemptLog,
    };
  });
}

/**
 * The alert instances firing now (the unacknowledged before those someone has, newest first), then the newest
 * resolved ones, with each notification sent for them, its status and its tries; and the console's test
 * notifications.
 * Each try's outcome for everyone; its error, status code and duration only
 * with `detail` (admins).
 */
export async function getAlertHistory(
  db: Executor,
  {
    limit = 50,
    testLimit = 20,
    detail = false,
    now = new Date(),
  }: { limit?: number; testLimit?: number; now?: Date } & DetailOption = {},
): Promise<AlertHistory> {
  const [instances, [instanceTotal], [testTotal]] = await Promise.all([
    db
      .select({
        ...getTableColumns(alertInstances),
        silenceNowId: sql<number | null>`case when ${alertInstances.status} = 'firing'
          then ${matchingSilenceId(instanceColumns, now)} end`,
      })
      .from(alertInstances)
      .orderBy(
        sql`case when ${alertInstances.status} = 'firing' and ${alertInstances.acknowledgedAt} is null then 0
          when ${alertInstances.status} = 'firing' then 1 else 2 end`,
        desc(alertInstances.firedAt),
        desc(alertInstances.id),
      )
      .limit(limit),
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
          { detail },
        ),
    readDeliveries(db, isNull(alertDeliveries.instanceId), { limit: testLimit, detail }),
  ]);
  const silences = await readSilencesById(
    db,
    instances.flatMap((instance) =>
      [instance.silenceNowId, instance.silencedBy].filter((id) => id !== null).map(Number),
    ),
  );
  const byInstance = new Map<number, DeliveryRow[]>();
  for (const delivery of deliveries) {
    if (delivery.instanceId === null) continue;
    const list = byInstance.get(delivery.instanceId) ?? [];
    list.push(delivery);
    byInstance.set(delivery.instanceId, list);
  }
  return {
    instances: instances.map(({ silenceNowId, ...instance }) => ({
      ...instance,
      silenceNow: silenceNowId === null ? null : (silences.get(Number(silenceNowId)) ?? null),
      silenceAtFiring: instance.silencedBy === null ? null : (silences.get(instance.silencedBy) ?? null),
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
