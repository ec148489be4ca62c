import { and, eq, gt, isNull, lte, sql } from 'drizzle-orm';
import { auditTrail } from '../core/audit/audit-trail';
import { authorize } from '../core/identity/authorization';
import { actorLabel, nowOf, type CoreContext } from '../core/kernel/context';
import { InvalidInputError, NotFoundError } from '@holdfast/protocol/errors';
import { parseInput } from '@holdfast/protocol/validation';
import type { Transaction } from '../db/client';
import { alertInstances, alertSilences, type AlertSilence } from '../db/schema';
import {
  createSilenceInput,
  endSilenceInput,
  MAX_SILENCE_MINUTES,
  MIN_SILENCE_MINUTES,
  type CreateSilenceInput,
  type EndSilenceInput,
} from '@holdfast/protocol/inputs/silence-input';
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
const silenceAudit = auditTrail('alert_silence', (silence: AlertSilence) => silence.id, auditView);

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

/** How far apart two ends may be for the same silence asked twice: a double submit of "1 hour" ends seconds apart. */
const SAME_END_WITHIN_MS = MIN_SILENCE_MINUTES * 60_000;

/**
 * The silence in force at `now` that this request would make again, if any: the same rule, subject pattern and
 * team (each or its absence), the same reason, and an end within a few minutes of the one asked. Asked to end
 * later than that, it is a new silence (an extension), not a repeat.
 */
async function sameSilenceInForce(
  tx: Transaction,
  silence: { kind: string | null; identityPattern: string | null; team: string | null; reason: string },
  endsAt: Date,
  now: Date,
): Promise<AlertSilence | undefined> {
  const [existing] = await tx
    .select()
    .from(alertSilences)
    .where(
      and(
        sql`${alertSilences.kind} is not distinct from ${silence.kind}`,
        sql`${alertSilences.identityPattern} is not distinct from ${silence.identityPattern}`,
        sql`${alertSilences.team} is not distinct from ${silence.team}`,
        eq(alertSilences.reason, silence.reason),
        isNull(alertSilences.endedAt),
        lte(alertSilences.startsAt, now),
        gt(alertSilences.endsAt, now),
        sql`abs(extract(epoch from ${alertSilences.endsAt} - ${endsAt.toISOString()}::timestamptz)) * 1000
          <= ${SAME_END_WITHIN_MS}`,
      ),
    )
    .orderBy(alertSilences.id)
    .limit(1);
  return existing;
}

/**
 * Silences the alerts a rule (or any rule) raises for a subject or team, from now until the end given: they are
 * still recorded, but not sent to the channels and not counted as waiting for someone. Responders and admins;
 * the creator is the session's person; audit-logged in the same transaction. Also says how many alerts firing now
 * it matches, so the person sees at once whether the pattern caught what they meant.
 *
 * Made once (DOMAIN invariant 16): asked again while the same silence is in force (sameSilenceInForce: a double
 * submit, or two people on call at once), it answers that silence with `created: false` and writes no audit
 * record. Requests for the same silence wait for one another on a transaction lock, so two at once make one.
 */
export async function createSilence(
  ctx: CoreContext,
  input: CreateSilenceInput,
): Promise<{ silence: AlertSilence; matchingFiring: number; created: boolean }> {
  const actor = authorize(ctx, 'alert.silence');
  const request = parseInput(createSilenceInput, input);
  const now = nowOf(ctx);
  const endsAt = endOf(request, now);
  const wanted = {
    kind: request.kind ?? null,
    identityPattern: request.identityPattern ?? null,
    team: request.team ?? null,
    reason: request.reason,
  };
  return ctx.db.transaction(async (tx) => {
    const matchingNow = async (silenceId: number) => {
      const [matching] = await tx
        .select({ count: sql<number>`count(*)::int` })
        .from(alertInstances)
        .where(and(eq(alertInstances.status, 'firing'), isSilencedBy(silenceId, instanceColumns, now)));
      return matching?.count ?? 0;
    };
    const lockKey = `alert-silence:${JSON.stringify(wanted)}`;
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${lockKey}, 0))`);
    const existing = await sameSilenceInForce(tx, wanted, endsAt, now);
    if (existing) return { silence: existing, matchingFiring: await matchingNow(existing.id), created: false };
    const [silence] = await tx
      .insert(alertSilences)
      .values({
        ...wanted,
        createdBy: actorLabel(actor),
        startsAt: now,
        endsAt,
      })
      .returning();
    if (!silence) throw new Error('createSilence: insert returned no row');
    await silenceAudit(tx, actor, 'alert.silence', { reason: request.reason, after: silence });
    return { silence, matchingFiring: await matchingNow(silence.id), created: true };
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
    await silenceAudit(tx, actor, 'alert.silence.end', { reason: null, before, after });
    return { changed: true, silence: after };
  });
}
