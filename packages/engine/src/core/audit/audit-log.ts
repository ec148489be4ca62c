import { auditLog, type AuditRecord } from '../../db/schema';
import type { Executor } from '../../db/client';
import type { Actor } from '../kernel/context';

export interface AuditEntry {
  action: string;
  targetType: string;
  targetId: string;
  reason?: string | null;
  before?: unknown;
  after?: unknown;
}

/** The row an entry is stored as: who acted comes from the actor, never from the entry. */
function auditRow(actor: Actor, entry: AuditEntry) {
  return {
    actorType: actor.type,
    actorId: actor.id,
    action: entry.action,
    targetType: entry.targetType,
    targetId: entry.targetId,
    reason: entry.reason ?? null,
    before: entry.before ?? null,
    after: entry.after ?? null,
  };
}

/**
 * Appends one audit record. Call it with the transaction that makes the change,
 * so the record exists if and only if the change does.
 */
export async function writeAudit(db: Executor, actor: Actor, entry: AuditEntry): Promise<AuditRecord> {
  const [record] = await db.insert(auditLog).values(auditRow(actor, entry)).returning();
  if (!record) throw new Error('writeAudit: insert returned no row');
  return record;
}

/**
 * Appends many audit records in one statement, in the caller's transaction (a
 * sweep's batch). Every record takes the audit chain's lock until the
 * transaction ends, so a batch writes its records last and all at once: other
 * audited actions wait for one statement, not for the whole batch.
 */
export async function writeAuditRecords(db: Executor, actor: Actor, entries: AuditEntry[]): Promise<number> {
  if (entries.length === 0) return 0;
  const records = await db
    .insert(auditLog)
    .values(entries.map((entry) => auditRow(actor, entry)))
    .returning({ id: auditLog.id });
  if (records.length !== entries.length) throw new Error('writeAuditRecords: insert returned fewer rows');
  return records.length;
}
