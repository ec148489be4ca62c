import 'server-only';
import { and, desc, eq } from 'drizzle-orm';
import type { Executor } from '@holdfast/engine/db';
import { type AuditRecord, auditLog, type Hold, holds } from '@holdfast/engine/db/schema';

/** Audit records a hold's page lists, newest first; the Audit page has the rest. */
export const HOLD_HISTORY_SHOWN = 50;

export interface HoldDetail {
  hold: Hold;
  /** What was done to the hold (opened, reassigned, cleared, frozen), newest first. */
  history: AuditRecord[];
}

/** One hold and its audit history, for its own page; undefined when no hold has the id. */
export async function getHoldDetail(db: Executor, id: number): Promise<HoldDetail | undefined> {
  const [hold] = await db.select().from(holds).where(eq(holds.id, id));
  if (!hold) return undefined;
  const history = await db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.targetType, 'hold'), eq(auditLog.targetId, String(id))))
    .orderBy(desc(auditLog.occurredAt), desc(auditLog.id))
    .limit(HOLD_HISTORY_SHOWN);
  return { hold, history };
}
