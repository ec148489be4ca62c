import 'server-only';
import { and, desc, eq, getTableColumns, gte, like, lt, type SQL, sql } from 'drizzle-orm';
import type { AuditFilter } from '../filters/audit';
import { type KeysetCursor, keysetPosition } from '../filters/keyset-cursor';
import { likeLiteral } from '@holdfast/engine/db';
import type { Executor } from '@holdfast/engine/db';
import { type AuditRecord, auditLog } from '@holdfast/engine/db/schema';
import { beyondCursor, cursorTime, type KeysetOrder, type KeysetPage, keysetOrderBy, readTablePage } from './keyset';

/** Newest first; the id breaks ties between records of one moment. */
export const auditOrder: KeysetOrder = {
  time: auditLog.occurredAt,
  id: auditLog.id,
  idType: 'bigint',
  direction: 'desc',
};

function auditCondition(filter: AuditFilter): SQL | undefined {
  return and(
    filter.actor
      ? sql`(${auditLog.actorType} || ':' || ${auditLog.actorId}) ilike ${`%${likeLiteral(filter.actor)}%`}`
      : undefined,
    filter.action ? like(auditLog.action, `${likeLiteral(filter.action)}%`) : undefined,
    filter.targetType ? eq(auditLog.targetType, filter.targetType) : undefined,
    filter.targetId ? eq(auditLog.targetId, filter.targetId) : undefined,
    filter.from ? gte(auditLog.occurredAt, filter.from) : undefined,
    filter.to ? lt(auditLog.occurredAt, filter.to) : undefined,
  );
}

/** Audit records matching the filter, newest first, up to `limit`, no paging. */
export async function listAudit(db: Executor, filter: AuditFilter, limit: number) {
  return db
    .select()
    .from(auditLog)
    .where(auditCondition(filter))
    .orderBy(desc(auditLog.occurredAt), desc(auditLog.id))
    .limit(limit);
}

/**
 * The next `limit` audit records matching the filter after `after` (the last
 * row of the previous read; none: from the newest), newest first, each with the
 * cursor that continues after it: the CSV export reads the log this way, a page
 * at a time, however long it is. The filter's own page position is not used.
 */
export async function readAuditAfter(
  db: Executor,
  filter: AuditFilter,
  after: KeysetCursor | undefined,
  limit: number,
): Promise<(AuditRecord & { cursorAt: string })[]> {
  return db
    .select({ ...getTableColumns(auditLog), cursorAt: cursorTime(auditLog.occurredAt) })
    .from(auditLog)
    .where(and(auditCondition(filter), after ? beyondCursor(auditOrder, after, 'after') : undefined))
    .orderBy(...keysetOrderBy(auditOrder))
    .limit(limit);
}

/** One page of the audit records matching the filter, newest first, at the filter's `after`/`before`. */
export async function pageAudit(
  db: Executor,
  filter: AuditFilter,
  pageSize?: number,
): Promise<KeysetPage<AuditRecord & { cursorAt: string }>> {
  return readTablePage(db, {
    table: auditLog,
    filtered: auditCondition(filter),
    order: auditOrder,
    position: keysetPosition(filter),
    pageSize,
    idOf: (record) => record.id,
  });
}
