import { sql } from 'drizzle-orm';
import { bigserial, check, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import {
  holdReasons,
  holdItemTypes,
  holdClosings,
  type HoldReason,
  type HoldItemType,
  type HoldClosing,
} from '@holdfast/protocol/enums';
export {
  holdReasons,
  holdItemTypes,
  holdResolutions,
  holdClosings,
  type HoldReason,
  type HoldItemType,
  type HoldResolution,
  type HoldClosing,
} from '@holdfast/protocol/enums';

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
