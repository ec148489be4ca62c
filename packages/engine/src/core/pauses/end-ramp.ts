import { eq } from 'drizzle-orm';
import { pauses, type Pause } from '../../db/schema';
import { writeAudit } from '../audit/audit-log';
import { authorize } from '../identity/authorization';
import { nowOf, type CoreContext } from '../kernel/context';
import { parseInput } from '@holdfast/protocol/validation';
import { endRampInput, type EndRampInput } from './pauses-input';
import { pauseTargetLabel } from './pause-gate';
import { lockPause } from './pauses';

export type EndRampOutcome = { ended: true; pause: Pause } | { ended: false; message: string };

/**
 * Ends a resume's ramp now: every begin the pause covered runs again, no longer limited per minute (the downstream
 * took the first minutes well). A pause not ramping now is left alone, with a message and no audit record.
 * Responders and admins; audited in the same transaction, the row locked meanwhile.
 */
export async function endRamp(ctx: CoreContext, input: EndRampInput): Promise<EndRampOutcome> {
  const actor = authorize(ctx, 'step.pause');
  const request = parseInput(endRampInput, input);
  return ctx.db.transaction(async (tx) => {
    const pause = await lockPause(tx, request.pauseId);
    const now = nowOf(ctx);
    if (!pause.rampEndsAt || pause.rampEndsAt <= now)
      return { ended: false, message: `${pauseTargetLabel(pause)} is not ramping up now` };
    const [ended] = await tx.update(pauses).set({ rampEndsAt: now }).where(eq(pauses.id, pause.id)).returning();
    if (!ended) throw new Error('endRamp: the locked pause vanished');
    await writeAudit(tx, actor, {
      action: 'pause.ramp_end',
      targetType: 'pause',
      targetId: String(pause.id),
      reason: request.reason,
      before: { target: pauseTargetLabel(pause), state: 'ramping', rampEndsAt: pause.rampEndsAt.toISOString() },
      after: { state: 'running', rampEndsAt: now.toISOString() },
    });
    return { ended: true, pause: ended };
  });
}
