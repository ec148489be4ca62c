import 'server-only';
import { and, desc, eq, gte, like, lt, type SQL, sql } from 'drizzle-orm';
import type { AuditFilter } from '../console/filters/audit';
import { keysetPosition } from '../console/filters/keyset-cursor';
import { likeLiteral } from '../db/like-pattern';
import type { Executor } from '../db/client';
import { type AuditRecord, auditLog } from '../db/schema';
import { type KeysetOrder, type KeysetPage, readTablePage } from './keyset';

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

/** Audit records matching the filter, newest first (the CSV export: up to `limit`, no paging). */
export async function listAudit(db: Executor, filter: AuditFilter, limit: number) {
  return db
    .select()
    .from(auditLog)
    .where(auditCondition(filter))
    .orderBy(desc(auditLog.occurredAt), desc(auditLog.id))
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
