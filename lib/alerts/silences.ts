import { and, eq, sql } from 'drizzle-orm';
import { writeAudit } from '../core/audit/audit-log';
import { authorize } from '../core/identity/authorization';
import { actorLabel, nowOf, type CoreContext } from '../core/kernel/context';
import { InvalidInputError, NotFoundError } from '../core/kernel/errors';
import { parseInput } from '../core/kernel/validation';
import { alertInstances, alertSilences, type AlertSilence } from '../db/schema';
import {
  createSilenceInput,
  endSilenceInput,
  MAX_SILENCE_MINUTES,
  MIN_SILENCE_MINUTES,
  type CreateSilenceInput,
  type EndSilenceInput,
} from './silence-input';
import { instanceColumns, isSilencedBy } from '../db/alert-silence-match';

/** What an audit record keeps of a silence: what it matches, until when, and whether it was ended. */
const auditView = (silence: AlertSilence) => ({
  kind: silence.kind,
  identityPattern: silence.identityPattern,
  team: silence.team,
  startsAt: silence.startsAt,
  endsAt: silence.endsAt,
  endedAt: silence.endedAt,
  endedBy: silence.endedBy,
});

/** When a silence asked for at `now` ends: after its duration, or at the time given, within the bounds. */
function endOf(request: { forMinutes?: number; endsAt?: Date }, now: Date): Date {
  if (request.forMinutes !== undefined) return new Date(now.getTime() + request.forMinutes * 60_000);
  const endsAt = request.endsAt!;
  const minutesAhead = (endsAt.getTime() - now.getTime()) / 60_000;
  if (minutesAhead < MIN_SILENCE_MINUTES || minutesAhead > MAX_SILENCE_MINUTES) {
    const message = `must be between ${MIN_SILENCE_MINUTES} minutes and 30 days from now`;
    throw new InvalidInputError(`Invalid input: endsAt: ${message}`, { endsAt: [message] });
  }
  return endsAt;
}

/**
 * Silences the alerts a rule (or any rule) raises for a subject or team, from now until the end given: they are
 * still recorded, but not sent to the channels and not counted as waiting for someone. Responders and admins;
 * the creator is the session's person; audit-logged in the same transaction. Also says how many alerts firing now
 * it matches, so the person sees at once whether the pattern caught what they meant.
 */
export async function createSilence(
  ctx: CoreContext,
  input: CreateSilenceInput,
): Promise<{ silence: AlertSilence; matchingFiring: number }> {
  const actor = authorize(ctx, 'alert.silence');
  const request = parseInput(createSilenceInput, input);
  const now = nowOf(ctx);
  const endsAt = endOf(request, now);
  return ctx.db.transaction(async (tx) => {
    const [silence] = await tx
      .insert(alertSilences)
      .values({
        kind: request.kind ?? null,
        identityPattern: request.identityPattern ?? null,
        team: request.team ?? null,
        reason: request.reason,
        createdBy: actorLabel(actor),
        startsAt: now,
        endsAt,
      })
      .returning();
    if (!silence) throw new Error('createSilence: insert returned no row');
    await writeAudit(tx, actor, {
      action: 'alert.silence',
      targetType: 'alert_silence',
      targetId: String(silence.id),
      reason: request.reason,
      before: null,
      after: auditView(silence),
    });
    const [matching] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(alertInstances)
      .where(and(eq(alertInstances.status, 'firing'), isSilencedBy(silence.id, instanceColumns, now)));
    return { silence, matchingFiring: matching?.count ?? 0 };
  });
}

/**
 * Ends a silence before its time: the alerts it held back are notified on the next evaluation pass if they still
 * fire. Ending one that has ended already (by a person or by its time) changes nothing and writes no audit record,
 * so a double click does it once. Responders and admins; audit-logged in the same transaction.
 */
export async function endSilence(
  ctx: CoreContext,
  input: EndSilenceInput,
): Promise<{ changed: boolean; silence: AlertSilence }> {
  const actor = authorize(ctx, 'alert.silence.end');
  const request = parseInput(endSilenceInput, input);
  const now = nowOf(ctx);
  return ctx.db.transaction(async (tx) => {
    const [before] = await tx.select().from(alertSilences).where(eq(alertSilences.id, request.silenceId)).for('update');
    if (!before) throw new NotFoundError(`No silence ${request.silenceId}`);
    if (before.endedAt !== null || before.endsAt <= now) return { changed: false, silence: before };
    const [after] = await tx
      .update(alertSilences)
      .set({ endedAt: now, endedBy: actorLabel(actor) })
      .where(eq(alertSilences.id, before.id))
      .returning();
    if (!after) throw new Error('endSilence: the locked silence vanished');
    await writeAudit(tx, actor, {
      action: 'alert.silence.end',
      targetType: 'alert_silence',
      targetId: String(after.id),
      reason: null,
      before: auditView(before),
      after: auditView(after),
    });
    return { changed: true, silence: after };
  });
}
