import { sql } from 'drizzle-orm';
import { bigserial, check, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/** The fixed, documented set of reasons work is parked for a person (see README). */
export const holdReasons = [
  'retry_ceiling',
  'budget_exhausted',
  'permanent_error',
  'payload_mismatch',
  'uncertain_outcome',
  'needs_approval',
  'needs_secret',
  'policy_blocked',
  'frozen',
  'stale_lock',
  'manual',
] as const;
export type HoldReason = (typeof holdReasons)[number];

export const holdItemTypes = ['task', 'dead_letter', 'key', 'slot'] as const;
export type HoldItemType = (typeof holdItemTypes)[number];

/** How a person clears a hold. */
export const holdResolutions = ['resume', 'discard'] as const;
export type HoldResolution = (typeof holdResolutions)[number];
/** How a hold may end: by a person, or `resolved` by the sweep once its condition cleared by itself. */
export const holdClosings = [...holdResolutions, 'resolved'] as const;
export type HoldClosing = (typeof holdClosings)[number];

const quoted = (values: readonly string[]) => sql.raw(values.map((value) => `'${value}'`).join(', '));

export const holds = pgTable(
  'holds',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    itemType: text('item_type').$type<HoldItemType>().notNull(),
    itemId: text('item_id').notNull(),
    reason: text('reason').$type<HoldReason>().notNull(),
    detail: text('detail').notNull(),
    /** `person:<email>` or `team:<name>`. */
    owner: text('owner').notNull(),
    status: text('status').$type<'open' | 'cleared'>().notNull().default('open'),
    resolution: text('resolution').$type<HoldClosing>(),
    resolutionNote: text('resolution_note'),
    openedAt: timestamp('opened_at', { withTimezone: true }).notNull().defaultNow(),
    openedBy: text('opened_by').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    clearedAt: timestamp('cleared_at', { withTimezone: true }),
    clearedBy: text('cleared_by'),
  },
  (table) => [
    check('holds_item_type_known', sql`${table.itemType} in (${quoted(holdItemTypes)})`),
    check('holds_reason_known', sql`${table.reason} in (${quoted(holdReasons)})`),
    check('holds_detail_not_blank', sql`btrim(${table.detail}) <> ''`),
    check('holds_owner_named', sql`${table.owner} ~ '^(person|team):.+'`),
    check('holds_status_known', sql`${table.status} in ('open', 'cleared')`),
    check('holds_resolution_known', sql`${table.resolution} in (${quoted(holdClosings)})`),
    check(
      'holds_cleared_has_resolution',
      sql`(${table.status} = 'cleared') = (${table.resolution} is not null and ${table.clearedAt} is not null)`,
    ),
    // At most one open hold per item: a second open finds the first.
    uniqueIndex('holds_open_item_idx').on(table.itemType, table.itemId).where(sql`${table.status} = 'open'`),
    // Serves "my holds": open holds by owner.
    index('holds_open_owner_idx').on(table.owner, table.openedAt).where(sql`${table.status} = 'open'`),
  ],
);

export type Hold = typeof holds.$inferSelect;
