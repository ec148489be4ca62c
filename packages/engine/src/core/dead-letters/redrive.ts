import { createHash } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Transaction } from '../../db/client';
import {
  deadLetters,
  holds,
  redrives,
  taskBudgets,
  type DeadLetter,
  type Redrive,
  type TaskBudget,
} from '../../db/schema';
import { writeAudit } from '../audit/audit-log';
import { authorize } from '../identity/authorization';
import { actorLabel, nowOf, policyOf, type Actor, type CoreContext } from '../kernel/context';
import { clearedHoldColumns } from '../holds/cleared-hold';
import { NotFoundError, RedriveRefusedError, StateConflictError } from '@holdfast/protocol/errors';
import { parseInput } from '@holdfast/protocol/validation';
import { deadLetterAction, redriveInput } from './redrive-input';
import { editedTaskId, payloadChanges } from '@holdfast/protocol/inputs/payload-edit-input';
import { describeBrakeRefusals, redriveBrakesRefusing } from './redrive-brakes';
import { registerTask } from '../tasks/task-agent';

/** What a redrive is asked with; the brakes apply unless `overrideBrakes` (which the caller has authorized). */
export interface RedriveRequest {
  reason: string;
  overrideBrakes?: boolean;
  /** An edited payload (validated by the caller): content that differs runs as a new task. */
  payload?: unknown;
}

export interface RedriveResult {
  redrive: Redrive;
  /** False when this dead letter had been redriven already: the same redrive is returned. */
  changed: boolean;
}

/**
 * Sends a dead letter back to be worked again: an outbox row whose key is
 * derived from the dead letter and its redrive number (so a double redrive
 * enqueues once), a fresh allowance for the task, and its open hold cleared.
 * Step keys are left alone: completed steps replay, the failed one runs again.
 * With an edited payload the work runs as a new task instead (see
 * redriveInTransaction). The redrive brakes (redrive-brakes.ts) may refuse; an
 * admin may override them.
 */
export async function redriveDeadLetter(ctx: CoreContext, input: z.input<typeof redriveInput>): Promise<RedriveResult> {
  const actor = authorize(ctx, 'dead_letter.redrive');
  const request = parseInput(redriveInput, input);
  if (request.overrideBrakes) authorize(ctx, 'dead_letter.redrive_override');
  return ctx.db.transaction(async (tx) => {
    const result = await redriveInTransaction(tx, ctx, actor, await lockDeadLetter(tx, request.deadLetterId), request);
    if (result.changed) await clearOpenHold(tx, actor, request.deadLetterId, 'resume', request.reason);
    return result;
  });
}

/** Gives a dead letter up for good, with a reason; its open hold is cleared as discarded. */
export async function discardDeadLetter(
  ctx: CoreContext,
  input: z.input<typeof deadLetterAction>,
): Promise<{ deadLetter: DeadLetter; changed: boolean }> {
  const actor = authorize(ctx, 'dead_letter.discard');
  const { deadLetterId, reason } = parseInput(deadLetterAction, input);
  return ctx.db.transaction(async (tx) => {
    const result = await discardInTransaction(tx, actor, await lockDeadLetter(tx, deadLetterId), reason);
    if (result.changed) await clearOpenHold(tx, actor, deadLetterId, 'discard', reason);
    return result;
  });
}

export async function lockDeadLetter(tx: Transaction, id: number): Promise<DeadLetter> {
  const [deadLetter] = await tx.select().from(deadLetters).where(eq(deadLetters.id, id)).for('update');
  if (!deadLetter) throw new NotFoundError(`No dead letter ${id}`);
  return deadLetter;
}

/**
 * The redrive itself, for a dead letter already locked by the caller's
 * transaction. A dead letter already redriven returns that redrive (a double
 * click is not a second redrive, so the brakes do not judge it). Otherwise the
 * task's budget row is locked and the brakes judged under that lock, so two
 * redrives of one task cannot both slip under a brake; a refusal throws
 * RedriveRefusedError before anything is written. The brakes and the time they
 * are judged at come from `ctx` (its policy and clock); its db is not used.
 *
 * An edited payload whose content differs is new content, so it is a new
 * operation: it runs as a new task (derived from the dead letter), whose steps
 * get new keys and run again; the old task, its keys and their stored results
 * are left as they are. The new task inherits the old one's agent, queue, owner
 * and allowances, and its redrive count, so the brakes still see the lineage.
 */
export async function redriveInTransaction(
  tx: Transaction,
  ctx: CoreContext,
  actor: Actor,
  deadLetter: DeadLetter,
  request: RedriveRequest,
): Promise<RedriveResult> {
  if (deadLetter.status === 'redriven') {
    const [latest] = await tx
      .select()
      .from(redrives)
      .where(eq(redrives.outboxKey, outboxKey(deadLetter.id, deadLetter.redriveCount)));
    if (!latest) throw new Error(`redrive: dead letter ${deadLetter.id} is redriven but has no outbox row`);
    return { redrive: latest, changed: false };
  }
  if (deadLetter.status === 'discarded')
    throw new StateConflictError(`Dead letter ${deadLetter.id} was discarded; it cannot be redriven`);

  const now = nowOf(ctx);
  const history = await lockRedriveHistory(tx, deadLetter.taskId);
  // A task with no budget row (dead-lettered through the API by an agent that keeps its own
  // budget) has no redrive history to brake on.
  const refusals = history ? redriveBrakesRefusing(history, policyOf(ctx).redriveBrakes, now) : [];
  if (refusals.length > 0 && !request.overrideBrakes) {
    throw new RedriveRefusedError(
      `Redrive of dead letter ${deadLetter.id} refused: ${describeBrakeRefusals(refusals)}. An admin may override the brakes with a reason.`,
      refusals.map((refusal) => refusal.rule),
    );
  }

  const redriveNumber = deadLetter.redriveCount + 1;
  const edit = request.payload === undefined ? undefined : payloadChanges(deadLetter.payload, request.payload);
  const edited = edit !== undefined && edit.total > 0;
  const runsAs = edited ? editedTaskIdOf(deadLetter) : deadLetter.taskId;
  const [redrive] = await tx
    .insert(redrives)
    .values({
      outboxKey: outboxKey(deadLetter.id, redriveNumber),
      deadLetterId: deadLetter.id,
      queue: deadLetter.queue,
      taskId: runsAs,
      payload: edited ? request.payload : deadLetter.payload,
      payloadEdited: edited,
      requestedBy: actorLabel(actor),
    })
    .returning();
  if (!redrive) throw new Error('redrive: the outbox insert returned no row');
  await tx
    .update(deadLetters)
    .set({ status: 'redriven', redriveCount: redriveNumber, updatedAt: sql`now()` })
    .where(eq(deadLetters.id, deadLetter.id));
  if (edited) {
    // The new task is the dead letter's agent's, whichever path its old task came by; it was begun by no one.
    const { registered } = await registerTask(
      tx,
      { taskId: runsAs, agent: deadLetter.agent, queue: deadLetter.queue },
      'dead_letter',
    );
    if (!registered) throw new StateConflictError(`Task ${runsAs} exists already; an edited redrive needs a new task`);
    if (history) await startEditedTask(tx, history, runsAs, now);
  } else {
    // A fresh allowance: retries, spend and wall-clock time start over for the task. Reserved
    // spend stays: attempts still running settle it when they finish.
    await tx
      .update(taskBudgets)
      .set({
        status: 'active',
        retriesUsed: 0,
        spendMicros: 0,
        deadline: sql`${now.toISOString()}::timestamptz + (${taskBudgets.timeAllowanceMs} * interval '1 millisecond')`,
        redrivesUsed: sql`${taskBudgets.redrivesUsed} + 1`,
        lastRedriveAt: now,
        updatedAt: sql`now()`,
      })
      .where(eq(taskBudgets.taskId, deadLetter.taskId));
  }
  await writeAudit(tx, actor, {
    action: 'dead_letter.redrive',
    targetType: 'dead_letter',
    targetId: String(deadLetter.id),
    reason: request.reason,
    before: { status: deadLetter.status, redriveCount: deadLetter.redriveCount, taskRedrives: history?.redrivesUsed },
    after: {
      status: 'redriven',
      redriveCount: redriveNumber,
      outboxKey: redrive.outboxKey,
      taskRedrives: history ? history.redrivesUsed + 1 : undefined,
      ...(edited ? { taskId: runsAs, payloadChanges: edit.changes, payloadChangeCount: edit.total } : {}),
      ...(refusals.length > 0
        ? { overriddenBrakes: refusals.map((refusal) => refusal.rule), brakes: describeBrakeRefusals(refusals) }
        : {}),
    },
  });
  return { redrive, changed: true };
}

/** The task's budget row, which holds its redrive history, locked for the rest of the transaction; undefined without one. */
async function lockRedriveHistory(tx: Transaction, taskId: string): Promise<TaskBudget | undefined> {
  const [budget] = await tx.select().from(taskBudgets).where(eq(taskBudgets.taskId, taskId)).for('update');
  return budget;
}

/**
 * The budget row of the task an edited redrive runs as: the old task's agent,
 * queue and owner (what an agent's token is authorized against) and its
 * allowances, fresh, with the redrive counted. A task of that id made by
 * anything else is a conflict, not something to take over.
 */
async function startEditedTask(tx: Transaction, old: TaskBudget, taskId: string, now: Date) {
  const [created] = await tx
    .insert(taskBudgets)
    .values({
      taskId,
      agent: old.agent,
      queue: old.queue,
      owner: old.owner,
      retryAllowance: old.retryAllowance,
      spendCeilingMicros: old.spendCeilingMicros,
      timeAllowanceMs: old.timeAllowanceMs,
      deadline: new Date(now.getTime() + old.timeAllowanceMs),
      redrivesUsed: old.redrivesUsed + 1,
      lastRedriveAt: now,
    })
    .onConflictDoNothing()
    .returning({ taskId: taskBudgets.taskId });
  if (!created) throw new StateConflictError(`Task ${taskId} exists already; an edited redrive needs a new task`);
}

/** The task an edited redrive of this dead letter runs as (editedTaskId), as the console shows it before the redrive. */
export function editedTaskIdOf(deadLetter: Pick<DeadLetter, 'id' | 'taskId' | 'editNonce'>): string {
  return editedTaskId(deadLetter.taskId, deadLetter, sha256);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export async function discardInTransaction(tx: Transaction, actor: Actor, deadLetter: DeadLetter, reason: string) {
  if (deadLetter.status === 'discarded') return { deadLetter, changed: false };
  if (deadLetter.status === 'redriven')
    throw new StateConflictError(`Dead letter ${deadLetter.id} was redriven; it cannot be discarded now`);
  const [discarded] = await tx
    .update(deadLetters)
    .set({ status: 'discarded', updatedAt: sql`now()` })
    .where(eq(deadLetters.id, deadLetter.id))
    .returning();
  if (!discarded) throw new Error('discard: the locked dead letter vanished');
  await tx
    .update(taskBudgets)
    .set({ status: 'discarded', updatedAt: sql`now()` })
    .where(eq(taskBudgets.taskId, deadLetter.taskId));
  await writeAudit(tx, actor, {
    action: 'dead_letter.discard',
    targetType: 'dead_letter',
    targetId: String(deadLetter.id),
    reason,
    before: { status: deadLetter.status },
    after: { status: 'discarded' },
  });
  return { deadLetter: discarded, changed: true };
}

function outboxKey(deadLetterId: number, redriveNumber: number): string {
  return `dead_letter:${deadLetterId}:redrive:${redriveNumber}`;
}

/** Acting on the dead letter directly also settles the hold that was waiting for it. */
export async function clearOpenHold(
  tx: Transaction,
  actor: Actor,
  deadLetterId: number,
  resolution: 'resume' | 'discard',
  note: string,
) {
  const cleared = await tx
    .update(holds)
    .set(clearedHoldColumns(resolution, note, actor))
    .where(and(eq(holds.itemType, 'dead_letter'), eq(holds.itemId, String(deadLetterId)), eq(holds.status, 'open')))
    .returning({ id: holds.id });
  for (const hold of cleared) {
    await writeAudit(tx, actor, {
      action: `hold.clear.${resolution}`,
      targetType: 'hold',
      targetId: String(hold.id),
      reason: note,
      before: { status: 'open' },
      after: { status: 'cleared', resolution, via: 'dead_letter' },
    });
  }
}
