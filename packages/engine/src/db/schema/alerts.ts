import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import {
  alertChannelKinds,
  alertEvents,
  alertKinds,
  type AlertChannelKind,
  type AlertEvent,
  type AlertKind,
} from '@holdfast/protocol/enums';

export {
  alertChannelKinds,
  alertEvents,
  alertKinds,
  type AlertChannelKind,
  type AlertEvent,
  type AlertKind,
} from '@holdfast/protocol/enums';

const quoted = (values: readonly string[]) => sql.raw(values.map((value) => `'${value}'`).join(', '));

/**
 * One rule per alert kind, with its thresholds (shape per kind: packages/engine/src/alerts/rule-input.ts).
 * Seeded by the migration with defaults; admins edit thresholds and switch rules off.
 */
export const alertRules = pgTable(
  'alert_rules',
  {
    kind: text('kind').$type<AlertKind>().primaryKey(),
    enabled: boolean('enabled').notNull().default(true),
    thresholds: jsonb('thresholds').$type<Record<string, number>>().notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    updatedBy: text('updated_by').notNull().default('system:migration'),
  },
  (table) => [check('alert_rules_kind_known', sql`${table.kind} in (${quoted(alertKinds)})`)],
);

/**
 * Where alerts go. `url` and `signingSecret` are secrets: the console shows the
 * secret once, at creation, and never the URL's path or query (`urlHint` is
 * its scheme and host). `team` routes: a channel with a team gets only that
 * team's alerts (holds it owns); one without gets every alert.
 */
export const alertChannels = pgTable(
  'alert_channels',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    name: text('name').notNull(),
    kind: text('kind').$type<AlertChannelKind>().notNull(),
    url: text('url').notNull(),
    urlHint: text('url_hint').notNull(),
    /** HMAC-SHA256 key of the Holdfast-Signature header (webhooks only). */
    signingSecret: text('signing_secret'),
    team: text('team'),
    enabled: boolean('enabled').notNull().default(true),
    /** Set when the receiver refused a delivery for good (a 4xx other than 408/429); cleared by a success. */
    failingSince: timestamp('failing_since', { withTimezone: true }),
    failingReason: text('failing_reason'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    createdBy: text('created_by').notNull(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (table) => [
    check('alert_channels_kind_known', sql`${table.kind} in (${quoted(alertChannelKinds)})`),
    check('alert_channels_webhook_signed', sql`${table.kind} <> 'webhook' or ${table.signingSecret} is not null`),
    uniqueIndex('alert_channels_live_name_key').on(table.name).where(sql`${table.deletedAt} is null`),
  ],
);

/**
 * One alert instance: a rule's condition holding for one subject (`identity`,
 * stable: `hold:42`, `queue:emails`, `step:research/draft`). It fires once and
 * resolves once: at most one firing instance per (kind, identity), by index.
 */
export const alertInstances = pgTable(
  'alert_instances',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    kind: text('kind').$type<AlertKind>().notNull(),
    identity: text('identity').notNull(),
    title: text('title').notNull(),
    detail: text('detail').notNull(),
    /** The console path that explains it (holds filtered to the owner, the step, the lock). */
    link: text('link').notNull(),
    /** The owner team it is routed to, if any. */
    team: text('team'),
    /**
     * The identities one coalesced notification stands for (hold_opened: the holds of one team
     * announced together, `identity` being the first of them); null for an instance that stands
     * for its identity alone (packages/engine/src/alerts/hold-digests.ts).
     */
    members: text('members').array(),
    status: text('status').$type<'firing' | 'resolved'>().notNull().default('firing'),
    firedAt: timestamp('fired_at', { withTimezone: true }).notNull().defaultNow(),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
    /**
     * Someone on call has it: who, when, why, and until when (null: until it resolves). An acknowledged alert
     * still fires and resolves as before; the console counts it apart from those nobody has taken.
     */
    acknowledgedBy: text('acknowledged_by'),
    acknowledgedAt: timestamp('acknowledged_at', { withTimezone: true }),
    acknowledgedUntil: timestamp('acknowledged_until', { withTimezone: true }),
    acknowledgementNote: text('acknowledgement_note'),
    /**
     * Repeats of one instance are not new alerts (packages/engine/src/alerts/evaluate.ts): `fireCount` is how many times its
     * condition began (1, plus each return within the quiet time), `lastSeenAt` the last pass it held, and
     * `clearedAt` when it stopped holding (null while it holds). It resolves once it has stayed clear for the
     * quiet time (packages/engine/src/alerts/flap-damping.ts), so a flapping condition is one alert, delivered once.
     */
    fireCount: integer('fire_count').notNull().default(1),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    clearedAt: timestamp('cleared_at', { withTimezone: true }),
    /** The silence that matched when it fired (kept for the history after the silence ends). */
    silencedBy: bigint('silenced_by', { mode: 'number' }).references(() => alertSilences.id),
    /** Its firing has not gone to the channels: a silence held it back. Sent if it still fires when none matches. */
    notificationHeld: boolean('notification_held').notNull().default(false),
  },
  (table) => [
    check('alert_instances_status_known', sql`${table.status} in ('firing', 'resolved')`),
    uniqueIndex('alert_instances_one_firing_key').on(table.kind, table.identity).where(sql`${table.status} = 'firing'`),
    index('alert_instances_fired_idx').on(table.firedAt),
  ],
);

/**
 * A silence: while it lasts, alerts it matches are still recorded but not sent to the channels, and not counted
 * as waiting for someone. It matches by rule (`kind`, null: any rule), and optionally by the alert's subject
 * (`identityPattern`: its identity, `*` standing for any text) and team. It starts when created and ends at
 * `endsAt`, or earlier when someone ends it (`endedAt`). Shape and bounds: packages/protocol/src/inputs/silence-input.ts.
 */
export const alertSilences = pgTable(
  'alert_silences',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    kind: text('kind').$type<AlertKind>(),
    identityPattern: text('identity_pattern'),
    team: text('team'),
    reason: text('reason').notNull(),
    createdBy: text('created_by').notNull(),
    startsAt: timestamp('starts_at', { withTimezone: true }).notNull(),
    endsAt: timestamp('ends_at', { withTimezone: true }).notNull(),
    endedAt: timestamp('ended_at', { withTimezone: true }),
    endedBy: text('ended_by'),
  },
  (table) => [
    check('alert_silences_kind_known', sql`${table.kind} is null or ${table.kind} in (${quoted(alertKinds)})`),
    check('alert_silences_ends_after_start', sql`${table.endsAt} > ${table.startsAt}`),
    // Serves the evaluator's and the console's "silences in force now" (ended_at is null, ends_at > now).
    index('alert_silences_ends_at_idx').on(table.endsAt).where(sql`${table.endedAt} is null`),
  ],
);

/**
 * The outbox: one row per (instance, event, channel), written in the same
 * transaction that fires or resolves the instance, so nothing is lost while a
 * receiver is down. `eventId` is sent as the Holdfast-Event-Id header: the same
 * on every retry of one delivery, so a receiver can drop a duplicate.
 */
export const alertDeliveries = pgTable(
  'alert_deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    eventId: uuid('event_id').notNull().defaultRandom().unique('alert_deliveries_event_id_key'),
    /** Null for a test sent from the console. */
    instanceId: bigint('instance_id', { mode: 'number' }).references(() => alertInstances.id),
    event: text('event').$type<AlertEvent>().notNull(),
    channelId: bigint('channel_id', { mode: 'number' })
      .notNull()
      .references(() => alertChannels.id),
    status: text('status').$type<'pending' | 'delivered' | 'failed'>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
  },
  (table) => [
    check('alert_deliveries_event_known', sql`${table.event} in (${quoted(alertEvents)})`),
    check('alert_deliveries_status_known', sql`${table.status} in ('pending', 'delivered', 'failed')`),
    unique('alert_deliveries_once_key').on(table.instanceId, table.event, table.channelId),
    index('alert_deliveries_due_idx').on(table.nextAttemptAt).where(sql`${table.status} = 'pending'`),
  ],
);

/** Each try of a delivery: what the receiver answered, or why it could not be reached. */
export const alertDeliveryAttempts = pgTable(
  'alert_delivery_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deliveryId: bigint('delivery_id', { mode: 'number' })
      .notNull()
      .references(() => alertDeliveries.id),
    attemptedAt: timestamp('attempted_at', { withTimezone: true }).notNull().defaultNow(),
    statusCode: integer('status_code'),
    error: text('error'),
    /** Not sent: Holdfast's outbound rule refused the destination (packages/engine/src/net/outbound-address.ts). */
    refusedByPolicy: boolean('refused_by_policy').notNull().default(false),
    durationMs: integer('duration_ms').notNull(),
  },
  (table) => [index('alert_delivery_attempts_delivery_idx').on(table.deliveryId)],
);

export type AlertRule = typeof alertRules.$inferSelect;
export type AlertChannel = typeof alertChannels.$inferSelect;
export type AlertInstance = typeof alertInstances.$inferSelect;
export type AlertDelivery = typeof alertDeliveries.$inferSelect;
export type AlertSilence = typeof alertSilences.$inferSelect;
