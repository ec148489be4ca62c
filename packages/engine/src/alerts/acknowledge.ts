import { eq } from 'drizzle-orm';
import { auditTrail } from '../core/audit/audit-trail';
import { authorize } from '../core/identity/authorization';
import { actorLabel, nowOf, type CoreContext } from '../core/kernel/context';
import { NotFoundError, StateConflictError } from '@holdfast/protocol/errors';
import { parseInput } from '@holdfast/protocol/validation';
import { alertInstances, type AlertInstance } from '../db/schema';
import { acknowledgeAlertInput, type AcknowledgeAlertInput } from './acknowledge-input';

/** What an audit record keeps of an acknowledgement. */
const acknowledgement = (alert: AlertInstance) => ({
  acknowledgedBy: alert.acknowledgedBy,
  acknowledgedUntil: alert.acknowledgedUntil,
});
const alertAudit = auditTrail('alert', (alert: AlertInstance) => alert.id, acknowledgement);

/**
 * A responder takes a firing alert: it stays firing (and resolves as before), but the console shows who has it,
 * why and until when, and counts it apart from those nobody has taken. Acknowledging again replaces the
 * acknowledgement (another person, a longer time). A resolved alert cannot be acknowledged. Audit-logged in the
 * same transaction, the row locked meanwhile.
 */
export async function acknowledgeAlert(ctx: CoreContext, input: AcknowledgeAlertInput): Promise<AlertInstance> {
  const actor = authorize(ctx, 'alert.acknowledge');
  const request = parseInput(acknowledgeAlertInput, input);
  const now = nowOf(ctx);
  return ctx.db.transaction(async (tx) => {
    const [before] = await tx.select().from(alertInstances).where(eq(alertInstances.id, request.alertId)).for('update');
    if (!before) throw new NotFoundError(`No alert ${request.alertId}`);
    if (before.status !== 'firing') {
      throw new StateConflictError(
        `Alert ${before.id} resolved ${before.resolvedAt?.toISOString() ?? ''}: nothing to acknowledge`,
      );
    }
    const [after] = await tx
      .update(alertInstances)
      .set({
        acknowledgedBy: actorLabel(actor),
        acknowledgedAt: now,
        acknowledgedUntil:
          request.forMinutes === undefined ? null : new Date(now.getTime() + request.forMinutes * 60_000),
        acknowledgementNote: request.note,
      })
      .where(eq(alertInstances.id, before.id))
      .returning();
    if (!after) throw new Error('acknowledgeAlert: the locked alert vanished');
    await alertAudit(tx, actor, 'alert.acknowledge', { reason: request.note, before, after });
    return after;
  });
}
