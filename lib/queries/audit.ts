import 'server-only';
import { and, desc, eq, gte, like, lt, sql } from 'drizzle-orm';
import type { AuditFilter } from '../console/filters/audit';
import type { Executor } from '../db/client';
import { auditLog } from '../db/schema';

/** Literal text for LIKE: a person's `%` or `_` means itself. */
const literal = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);

/** Audit records matching the filter, newest first. */
export async function listAudit(db: Executor, filter: AuditFilter, limit: number) {
  return db
    .select()
    .from(auditLog)
    .where(
      and(
        filter.actor
          ? sql`(${auditLog.actorType} || ':' || ${auditLog.actorId}) ilike ${`%${literal(filter.actor)}%`}`
          : undefined,
        filter.action ? like(auditLog.action, `${literal(filter.action)}%`) : undefined,
        filter.targetType ? eq(auditLog.targetType, filter.targetType) : undefined,
        filter.targetId ? eq(auditLog.targetId, filter.targetId) : undefined,
        filter.from ? gte(auditLog.occurredAt, filter.from) : undefined,
        filter.to ? lt(auditLog.occurredAt, filter.to) : undefined,
      ),
    )
    .orderBy(desc(auditLog.occurredAt), desc(auditLog.id))
    .limit(limit);
}
