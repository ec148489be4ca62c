import { createHash } from 'node:crypto';

/**
 * The audit chain's hash, computed here independently of the database's trigger
 * (packages/engine/drizzle/0012_add_audit_chain.sql, audit_log_canonical_text): each field as
 * `<UTF-8 byte length>:<text>` or `~` for NULL, joined by `|`. Keep the two in step.
 */

/** A record's fields as PostgreSQL renders them to text (time in UTC with microseconds, jsonb canonical). */
export interface AuditRecordText {
  id: string;
  chainPosition: string;
  previousHash: string | null;
  occurredAt: string;
  actorType: string;
  actorId: string;
  action: string;
  targetType: string;
  targetId: string;
  reason: string | null;
  before: string | null;
  after: string | null;
}

/** The hash the first record names as its predecessor. */
export const GENESIS_HASH = '0'.repeat(64);

export function canonicalAuditText(record: AuditRecordText): string {
  const fields = [
    record.id,
    record.chainPosition,
    record.previousHash,
    record.occurredAt,
    record.actorType,
    record.actorId,
    record.action,
    record.targetType,
    record.targetId,
    record.reason,
    record.before,
    record.after,
  ];
  return fields.map((field) => (field === null ? '~' : `${Buffer.byteLength(field, 'utf8')}:${field}`)).join('|');
}

export function auditRecordHash(record: AuditRecordText): string {
  return createHash('sha256').update(canonicalAuditText(record), 'utf8').digest('hex');
}
