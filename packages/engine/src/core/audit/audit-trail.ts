import type { AuditRecord } from '../../db/schema';
import type { Executor } from '../../db/client';
import type { Actor } from '../kernel/context';
import { writeAudit } from './audit-log';

/** One audited change to a row: why, and the row before and after it (none before a create, none after a delete). */
export interface RowChange<Row> {
  reason?: string | null;
  before?: Row | null;
  after?: Row | null;
}

/**
 * The audit trail of one kind of row, with its target type, how a row is named, and the view of a row the log
 * keeps (settings, never secrets) fixed once: every record of that kind then has the same shape, and a change is
 * one call in the transaction that makes it.
 */
export function auditTrail<Row>(
  targetType: string,
  idOf: (row: Row) => string | number,
  view: (row: Row) => unknown,
): (db: Executor, actor: Actor, action: string, change: RowChange<Row>) => Promise<AuditRecord> {
  return (db, actor, action, { reason, before, after }) => {
    const row = after ?? before;
    if (!row) throw new Error(`${action}: an audited change names the row before or after it`);
    return writeAudit(db, actor, {
      action,
      targetType,
      targetId: String(idOf(row)),
      reason: reason ?? null,
      before: before ? view(before) : null,
      after: after ? view(after) : null,
    });
  };
}
