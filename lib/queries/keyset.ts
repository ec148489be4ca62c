import 'server-only';
import { type AnyColumn, and, getTableColumns, type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from '@holdfast/engine/db';
import { KEYSET_PAGE_SIZE, type KeysetCursor, type KeysetPosition } from '../filters/keyset-cursor';

/** A list's order: a time column, then an id that breaks ties, both ascending or both descending. */
export interface KeysetOrder {
  time: AnyColumn;
  id: AnyColumn;
  /** How the id is written in SQL when compared with a cursor's (text in the URL). */
  idType: 'bigint' | 'text';
  direction: 'asc' | 'desc';
}

/** One page of a list: its rows, where they sit in the whole ("Showing A–B of N"), and the cursors around them. */
export interface KeysetPage<Row> {
  rows: Row[];
  /** 1-based position of the first row (0 when the page is empty). */
  start: number;
  end: number;
  total: number;
  previous?: KeysetCursor;
  next?: KeysetCursor;
}

/** The time as Postgres writes it (microseconds and offset kept), so a cursor round-trips exactly. */
export const cursorTime = (time: AnyColumn) => sql<string>`${time}::text`;

/** Rows on one side of a cursor, in the list's order: `after` follows it, `before` precedes it. */
export function beyondCursor(order: KeysetOrder, cursor: KeysetCursor, side: 'after' | 'before'): SQL {
  const increasing = (order.direction === 'asc') === (side === 'after');
  const id = sql`${cursor.id}::${sql.raw(order.idType)}`;
  return increasing
    ? sql`(${order.time}, ${order.id}) > (${cursor.at}::timestamptz, ${id})`
    : sql`(${order.time}, ${order.id}) < (${cursor.at}::timestamptz, ${id})`;
}

/** ORDER BY for the list's order, or its reverse (reading backwards from a `before` cursor). */
export function keysetOrderBy(order: KeysetOrder, reverse = false): SQL[] {
  const ascending = (order.direction === 'asc') !== reverse;
  return ascending ? [sql`${order.time} asc`, sql`${order.id} asc`] : [sql`${order.time} desc`, sql`${order.id} desc`];
}

/**
 * One page of a keyset-paged list. `select(where, orderBy, limit)` reads rows
 * (each with `cursorAt`, the row's time as `cursorTime` writes it, and its id);
 * `count(where)` counts rows under the list's own filter plus `where`. A cursor
 * that leads nowhere (its rows cleared since) falls back to the first page, as
 * does a `before` page too short to fill, so a page is always full when it can be.
 */
export async function readKeysetPage<Row extends { cursorAt: string }>({
  order,
  position,
  idOf,
  select,
  count,
  pageSize = KEYSET_PAGE_SIZE,
}: {
  order: KeysetOrder;
  position: KeysetPosition;
  idOf: (row: Row) => string | number;
  select: (where: SQL | undefined, orderBy: SQL[], limit: number) => Promise<Row[]>;
  count: (where: SQL | undefined) => Promise<number>;
  pageSize?: number;
}): Promise<KeysetPage<Row>> {
  const cursorOf = (row: Row): KeysetCursor => ({ at: row.cursorAt, id: String(idOf(row)) });
  let rows: Row[];
  if ('after' in position)
    rows = await select(beyondCursor(order, position.after, 'after'), keysetOrderBy(order), pageSize);
  else if ('before' in position)
    rows = (
      await select(beyondCursor(order, position.before, 'before'), keysetOrderBy(order, true), pageSize)
    ).reverse();
  else rows = await select(undefined, keysetOrderBy(order), pageSize);
  if (Object.keys(position).length > 0 && rows.length < pageSize && !('after' in position && rows.length > 0))
    rows = await select(undefined, keysetOrderBy(order), pageSize);

  const [total, preceding] = await Promise.all([
    count(undefined),
    rows[0] ? count(beyondCursor(order, cursorOf(rows[0]), 'before')) : Promise.resolve(0),
  ]);
  const first = rows[0];
  const last = rows.at(-1);
  const start = first ? preceding + 1 : 0;
  const end = first ? preceding + rows.length : 0;
  return {
    rows,
    start,
    end,
    total,
    previous: first && start > 1 ? cursorOf(first) : undefined,
    next: last && end < total ? cursorOf(last) : undefined,
  };
}

/**
 * One page of a whole table's rows under `filtered`, in `order`: the common case
 * of readKeysetPage (holds, audit records, keys), each row with its `cursorAt`.
 */
export function readTablePage<Table extends PgTable>(
  db: Executor,
  {
    table,
    filtered,
    order,
    position,
    idOf,
    pageSize,
  }: {
    table: Table;
    filtered: SQL | undefined;
    order: KeysetOrder;
    position: KeysetPosition;
    idOf: (row: Table['$inferSelect']) => string | number;
    pageSize?: number;
  },
): Promise<KeysetPage<Table['$inferSelect'] & { cursorAt: string }>> {
  type Row = Table['$inferSelect'] & { cursorAt: string };
  return readKeysetPage<Row>({
    order,
    position,
    pageSize,
    idOf,
    select: async (where, orderBy, limit) =>
      // drizzle cannot name the row type of a table known only as a generic; the select is all its columns.
      (await db
        .select({ ...getTableColumns(table), cursorAt: cursorTime(order.time) })
        .from(table as PgTable)
        .where(and(filtered, where))
        .orderBy(...orderBy)
        .limit(limit)) as Row[],
    count: async (where) => {
      const [row] = await db
        .select({ count: sql<number>`count(*)`.mapWith(Number) })
        .from(table as PgTable)
        .where(and(filtered, where));
      return row?.count ?? 0;
    },
  });
}
