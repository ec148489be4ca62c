import type { BeginAnswer, StopAnswer } from '@holdfast/protocol/steps/step-protocol';
import { BudgetsTakenOutOfOrder } from '../budgets/budget-reservations';
import { openHold } from '../holds/open-hold';
import { attemptSourceOf } from '../kernel/context';
import { retryOnDeadlock } from '../kernel/deadlock-retry';
import { claimCheckedKey } from '../keys/claim-key';
import { hashContent } from '@holdfast/protocol/keys/derive-key';
import { allowanceLeft } from './budget-row';
import { taskMadeInBegin } from './begin-task';
import { gatesInClaim, type Begin, type ClaimedAttempt, type Refusal } from './gates';
import type { TaskNames } from './new-task';

/** A gate in the claim's transaction said no: thrown to roll the claim and everything else it wrote back. */
export class BeginRefused extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.gate);
  }
}

/** The claim's answer, or an uncertain key: its hold is opened once the transaction has committed. */
type Claimed = { kind: 'answer'; answer: BeginAnswer } | { kind: 'uncertain'; intentAt: Date };

/**
 * Claims the step's key and runs the gates in one transaction (retried on a deadlock). A new task's row is made
 * in it, with the claim; `remember` learns it once committed (a rolled-back transaction made no task).
 */
export async function claimAndGate(
  begin: Begin,
  /** The queue the request named, if it named one. */
  claimedQueue: string | undefined,
  remember: (made: TaskNames | undefined) => void,
): Promise<Claimed> {
  const { ctx, facts, now } = begin;
  const by = { begunBy: ctx.actor?.id ?? null, source: attemptSourceOf(ctx) };
  const claimOnce = () =>
    retryOnDeadlock(ctx.db, () =>
      ctx.db.transaction(async (tx) => {
        // A new task's row is sent with the claim, not before it: the claim does not depend on it.
        const names = facts.task ?? taskMadeInBegin(ctx, tx, begin.request, claimedQueue, now);
        // Both settle before either is read: the task's authorization (a concurrent first begin of another agent
        // may have made it) speaks before anything the claim found.
        const [made, claim] = await Promise.allSettled([names, claimKey(tx, begin)]);
        if (made.status === 'rejected') throw made.reason;
        if (claim.status === 'rejected') throw claim.reason;
        const madeHere = facts.task ? undefined : made.value;
        if (claim.value.outcome !== 'acquired') return { claimed: keyAnswer(claim.value, begin), madeHere };
        const { attemptNumber, fencingToken } = claim.value;
        const request = { ...begin.request, agent: made.value.agent, queue: made.value.queue };
        const attempt: ClaimedAttempt = { tx, request, attemptNumber, by };
        for (const gate of gatesInClaim) {
          const refusal = await gate.take(attempt, begin);
          if (refusal) throw new BeginRefused(refusal);
        }
        const run: BeginAnswer = {
          decision: 'run',
          key: begin.key,
          attemptNumber,
          fencingToken,
          reservedMicros: begin.estimate,
          ...allowanceLeft(attempt.budget!, now),
        };
        return { claimed: { kind: 'answer', answer: run } as Claimed, madeHere };
      }),
    );
  const { claimed, madeHere } = await claimOnce().catch((error: unknown) => {
    if (!(error instanceof BudgetsTakenOutOfOrder)) throw error;
    begin.budgetsInOrder = true;
    return claimOnce();
  });
  remember(madeHere);
  return claimed;
}

/** Claims the key; its values were validated with the begin's (beginStepInput), so not parsed again. */
function claimKey(tx: ClaimedAttempt['tx'], { request, key }: Begin) {
  return claimCheckedKey(
    { db: tx },
    {
      key,
      scope: 'step',
      requestHash: hashContent(request.content ?? null),
      holder: request.runKey,
      inProgressTtlMs: request.inProgressTtlMs,
      downstreamIdempotent: request.downstreamIdempotent,
      taskId: request.taskId,
      step: request.step,
    },
  );
}

type KeyClaim = Awaited<ReturnType<typeof claimCheckedKey>>;

/** What the key answers before any gate: its stored result, another attempt running, or an uncertain outcome. */
function keyAnswer(claim: Exclude<KeyClaim, { outcome: 'acquired' }>, { request, key }: Begin): Claimed {
  switch (claim.outcome) {
    case 'replay':
      return { kind: 'answer', answer: { decision: 'replay', key, result: claim.result } };
    case 'in_progress':
      return {
        kind: 'answer',
        answer: {
          decision: 'wait',
          code: 'KEY_IN_PROGRESS',
          retryAfterMs: claim.retryAfterMs,
          detail: `Step ${request.step} is being run by another attempt; begin again later`,
        },
      };
    case 'uncertain':
      return { kind: 'uncertain', intentAt: claim.intentAt };
  }
}

/** A step that began and never reported back, its downstream unable to deduplicate: held for a person. */
export async function uncertainStop(begin: Begin, intentAt: Date): Promise<StopAnswer> {
  const { ctx, actor, request, key } = begin;
  const { owner } = await begin.taskSeen();
  const { hold } = await openHold(
    { db: ctx.db, actor },
    {
      itemType: 'key',
      itemId: key,
      reason: 'uncertain_outcome',
      owner,
      detail: `Step ${request.step} started at ${intentAt.toISOString()} and never reported back; its downstream cannot deduplicate, so check whether the side effect happened before resuming`,
    },
  );
  return {
    decision: 'stop',
    code: 'UNCERTAIN_OUTCOME',
    reason: 'uncertain_outcome',
    detail: `Key ${key} has an uncertain outcome: do not repeat the step`,
    holdId: hold.id,
  };
}

/** A step delivered again with other content under the same key: the task is held for a person. */
export async function payloadMismatchStop(begin: Begin, message: string): Promise<StopAnswer> {
  const { ctx, actor, request, key } = begin;
  const { owner } = await begin.taskSeen();
  const { hold } = await openHold(
    { db: ctx.db, actor },
    {
      itemType: 'task',
      itemId: request.taskId,
      reason: 'payload_mismatch',
      owner,
      detail: `Step ${request.step} was delivered again with different content under key ${key}`,
    },
  );
  return {
    decision: 'stop',
    code: 'KEY_PAYLOAD_MISMATCH',
    reason: 'payload_mismatch',
    detail: message,
    holdId: hold.id,
  };
}
