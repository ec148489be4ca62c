import { and, eq, isNull, lte, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { pauses, type Pause } from '../../db/schema';
import { writeAudit } from '../audit/audit-log';
import { authorize } from '../identity/authorization';
import { actorLabel, nowOf, type CoreContext } from '../kernel/context';
import { NotFoundError } from '@holdfast/protocol/errors';
import { parseInput } from '@holdfast/protocol/validation';
import { agentExists, stepExists } from '../kernel/known-step';
import { pauseTargetLabel } from './pause-gate';
import { pauseInput, resumeInput, type PauseInput, type PauseRequest, type ResumeInput } from './pauses-input';

const MINUTE_MS = 60_000;

export type PauseOutcome = { paused: true; pause: Pause } | { paused: false; pause: Pause; message: string };
export type ResumeOutcome = { resumed: true; pause: Pause } | { resumed: false; message: string };

/**
 * Pauses a step, an agent or a downstream: from now, every begin it covers
 * waits (PAUSED) until the pause ends or is resumed. Audited in the same
 * transaction. A target already paused keeps its pause (two people pausing at
 * once make one pause); the answer says whose, and nothing is written.
 */
export async function setPause(ctx: CoreContext, input: PauseInput): Promise<PauseOutcome> {
  const actor = authorize(ctx, 'step.pause');
  const request = parseInput(pauseInput, input);
  await refuseUnknownTarget(ctx.db, request);
  const now = nowOf(ctx);
  const target = {
    scope: request.scope,
    agent: request.scope === 'downstream' ? null : request.agent,
    step: request.scope === 'step' ? request.step : null,
    downstream: request.scope === 'downstream' ? request.downstream : null,
  };
  return ctx.db.transaction(async (tx) => {
    await closeLapsedPauses(tx, target, now);
    const [created] = await tx
      .insert(pauses)
      .values({
        ...target,
        reason: request.reason,
        pausedBy: actorLabel(actor),
        pausedAt: now,
        endsAt: request.forMinutes === undefined ? null : new Date(now.getTime() + request.forMinutes * MINUTE_MS),
      })
      // The one-unresumed-pause-per-target index decides between two people pausing at once.
      .onConflictDoNothing()
      .returning();
    if (!created) {
      const existing = await unresumedPauseOf(tx, target);
      if (!existing) throw new Error('pause: the conflicting pause vanished');
      return {
        paused: false,
        pause: existing,
        message: `${pauseTargetLabel(existing)} is already paused by ${existing.pausedBy} since ${existing.pausedAt.toISOString()}`,
      };
    }
    await writeAudit(tx, actor, {
      action: 'pause.set',
      targetType: 'pause',
      targetId: String(created.id),
      reason: request.reason,
      // What begins of the target did before: ran.
      before: { scope: created.scope, target: pauseTargetLabel(created), state: 'running' },
      after: {
        scope: created.scope,
        target: pauseTargetLabel(created),
        state: 'paused',
        endsAt: created.endsAt?.toISOString() ?? null,
      },
    });
    return { paused: true, pause: created };
  });
}

/**
 * Resumes a pause at once, or with a ramp (begins per minute start at the
 * ramp's rate and rise by as much each minute until the ramp ends). A pause
 * that no longer holds (resumed, or past its end) is left alone: a no-op with
 * a message, and no audit record.
 */
export async function resumePause(ctx: CoreContext, input: ResumeInput): Promise<ResumeOutcome> {
  const actor = authorize(ctx, 'step.pause');
  const request = parseInput(resumeInput, input);
  const now = nowOf(ctx);
  return ctx.db.transaction(async (tx) => {
    const pause = await lockPause(tx, request.pauseId);
    if (pause.resumedAt) {
      return {
        resumed: false,
        message: `${pauseTargetLabel(pause)} is not paused: ${pause.resumedBy} resumed it at ${pause.resumedAt.toISOString()}`,
      };
    }
    if (pause.endsAt && pause.endsAt <= now) {
      return {
        resumed: false,
        message: `${pauseTargetLabel(pause)} is not paused: its pause ended at ${pause.endsAt.toISOString()}`,
      };
    }
    const ramp = request.ramp;
    const [resumed] = await tx
      .update(pauses)
      .set({
        resumedAt: now,
        resumedBy: actorLabel(actor),
        rampStartPerMinute: ramp?.startPerMinute ?? null,
        rampEndsAt: ramp ? new Date(now.getTime() + ramp.overMinutes * MINUTE_MS) : null,
      })
      .where(eq(pauses.id, pause.id))
      .returning();
    await writeAudit(tx, actor, {
      action: 'pause.resume',
      targetType: 'pause',
      targetId: String(pause.id),
      reason: request.reason,
      before: {
        target: pauseTargetLabel(pause),
        state: 'paused',
        pausedBy: pause.pausedBy,
        pausedAt: pause.pausedAt.toISOString(),
      },
      // Paused to ramping (begins let through at a rising rate) or to running (all at once).
      after: ramp
        ? { state: 'ramping', ramp: { startPerMinute: ramp.startPerMinute, overMinutes: ramp.overMinutes } }
        : { state: 'running', ramp: null },
    });
    return { resumed: true, pause: resumed as Pause };
  });
}

async function refuseUnknownTarget(db: Executor, request: PauseRequest): Promise<void> {
  if (request.scope === 'step' && !(await stepExists(db, request))) {
    throw new NotFoundError(`No step "${request.step}" of agent "${request.agent}" is known`);
  }
  if (request.scope === 'agent' && !(await agentExists(db, request.agent))) {
    throw new NotFoundError(`No agent "${request.agent}" is known`);
  }
  // A downstream needs no history: it may be paused before any agent has named it.
}

type PauseTargetColumns = Pick<Pause, 'scope' | 'agent' | 'step' | 'downstream'>;

function sameTarget(target: PauseTargetColumns) {
  return and(
    eq(pauses.scope, target.scope),
    sql`coalesce(${pauses.agent}, '') = ${target.agent ?? ''}`,
    sql`coalesce(${pauses.step}, '') = ${target.step ?? ''}`,
    sql`coalesce(${pauses.downstream}, '') = ${target.downstream ?? ''}`,
  );
}

/** A pause past its end time is closed as of that time, so that the target may be paused again. */
async function closeLapsedPauses(db: Executor, target: PauseTargetColumns, now: Date): Promise<void> {
  await db
    .update(pauses)
    .set({ resumedAt: sql`${pauses.endsAt}`, resumedBy: 'its end time' })
    .where(and(sameTarget(target), isNull(pauses.resumedAt), lte(pauses.endsAt, now)));
}

async function unresumedPauseOf(db: Executor, target: PauseTargetColumns): Promise<Pause | undefined> {
  const [pause] = await db
    .select()
    .from(pauses)
    .where(and(sameTarget(target), isNull(pauses.resumedAt)));
  return pause;
}

/** The pause, its row locked until the transaction ends; a 404 when there is none. */
export async function lockPause(tx: Executor, pauseId: number): Promise<Pause> {
  const [pause] = await tx.select().from(pauses).where(eq(pauses.id, pauseId)).for('update');
  if (!pause) throw new NotFoundError(`No pause ${pauseId}`);
  return pause;
}
