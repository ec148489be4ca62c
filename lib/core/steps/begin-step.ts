import { and, eq, sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import { deadLetters, holds, idempotencyKeys, type ErrorClass, type TaskStatus } from '../../db/schema';
import { readTaskBudget } from '../budgets/task-budget';
import { tallyReplay } from '../keys/replay-tally';
import { attemptSourceOf, nowOf, type CoreContext } from '../kernel/context';
import { retryOnDeadlock } from '../kernel/deadlock-retry';
import { InvalidInputError, KeyPayloadMismatchError } from '@holdfast/protocol/errors';
import { defaultOwnerOf } from '../holds/known-owner';
import { openHold } from '../holds/open-hold';
import { claimCheckedKey } from '../keys/claim-key';
import { refuseRawPrefixedTaskId } from '../keys/raw-key-name';
import { authorizeTaskAgent } from '../tasks/task-agent';
import { aliasAgentOf, aliasOf, refuseForeignAlias, storedTaskIdFor } from '../tasks/task-alias';
import { deriveKey, hashContent } from '@holdfast/protocol/keys/derive-key';
import { countPoolUsage } from '../retry-pools/pool-usage';
import { takeRetryFromPools, type PoolGrant } from '../retry-pools/take-retry';
import { parseInput } from '@holdfast/protocol/validation';
import { takeProbes, type BreakerFacts } from '../breakers/breaker-gate';
import {
  countPausedBegin,
  pausedRetryAfterMs,
  rampMinute,
  takeRampGrant,
  type PauseFacts,
  type RampingPause,
} from '../pauses/pause-gate';
import { estimateStepCost } from './cost-estimate';
import { exhaustTask, type ExhaustionReason } from './exhaust-task';
import { stepActor } from './step-actor';
import { allowanceLeft, BUDGET_COLUMNS, type BudgetRow } from './budget-row';
import { readBeginFacts } from './begin-reads';
import { chargesRetrySql, writeBegin } from './begin-writes';
import { taskOnBegin, type TaskNames } from './new-task';
import {
  beginStepInput,
  type BeginAnswer,
  type BeginStepInput,
  type BeginStepRequest,
  type StopAnswer,
} from '@holdfast/protocol/steps/step-protocol';

/** Why a begin was refused after its claim; the claim and everything else it wrote are rolled back. */
type Refusal =
  | { kind: 'task_not_active'; status: TaskStatus }
  | { kind: 'exhausted'; reason: ExhaustionReason; detail: string }
  | { kind: 'pool_empty'; grant: Extract<PoolGrant, { granted: false }> }
  | { kind: 'ramp_full'; ramp: RampingPause }
  | { kind: 'circuit_open'; breaker: BreakerFacts; retryAfterMs: number };

/** A new task's id was stored for another agent after the begin's reads: the begin goes to this agent's alias. */
class TaskIdTakenMeanwhile extends Error {}

class BeginRefused extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.kind);
  }
}

type Decided = { kind: 'answer'; answer: BeginAnswer } | { kind: 'uncertain'; intentAt: Date } | Refusal;

/**
 * Begins one attempt of a step. Derives and claims its key, then answers:
 * `replay` (the step completed: use its stored result), `wait` (another
 * attempt is running, the retry pool is empty, or a pause holds the step:
 * begin again after retryAfterMs), `stop` (do not go on: uncertain outcome, payload mismatch,
 * a frozen, finished or dead-lettered task, no retry or budget left), or
 * `run`. Before `run`, in one transaction with the claim: a retry is taken
 * from the task's allowance and from the fleet's retry pools, the expected
 * spend is reserved against the task's ceiling (one guarded UPDATE, so
 * concurrent begins can never reserve past it), the deadline is checked, and
 * the attempt is recorded as running. Every attempt is gated, first tries too.
 */
export async function beginStep(ctx: CoreContext, input: BeginStepInput): Promise<BeginAnswer> {
  const parsed = parseInput(beginStepInput, input);
  refuseRawPrefixedTaskId(parsed.taskId);
  refuseForeignAlias(parsed.taskId, parsed.agent);
  const now = nowOf(ctx);
  const key = deriveKey({ taskId: parsed.taskId, step: parsed.step, iteration: parsed.iteration });
  const stored = await readBeginFacts(ctx.db, parsed, key, now);
  // The id is another agent's task: this agent's task of that name is stored under its alias (task-alias.ts).
  const storedId = storedTaskIdFor(parsed.agent, parsed.taskId, stored.registeredAgent);
  if (storedId !== parsed.taskId) return beginStep(ctx, { ...input, taskId: storedId });
  await authorizeBegin(ctx, parsed, stored.task);
  // A repeat of a completed step, its content unchanged: the stored result, once the task's stored agent has
  // authorized the caller, with nothing written (the call is counted later: replay-tally.ts).
  if (stored.completed && stored.requestHash === hashContent(parsed.content ?? null)) {
    tallyReplay(ctx.db, key);
    return { decision: 'replay', key, result: stored.result };
  }
  // The task's stored names stand for the request's (they are equal, or a queue was left out). A new task's row
  // is made in the begin's transaction with the claim (taskOnBegin); a begin that ends without committing
  // it (a gate's wait, a refusal) still leaves its task seen, as every begin does (taskSeen).
  let task: TaskNames | undefined = stored.task;
  const request = { ...parsed, agent: task?.agent ?? parsed.agent, queue: task?.queue ?? parsed.queue ?? parsed.agent };
  const taskSeen = once(async () => (task ??= (await taskOnBegin(ctx.db, request, now, defaultOwnerOf(ctx))).task));
  const actor = stepActor(ctx, request.agent, request.queue);
  // A pause or an open breaker turns every begin away, except a repeat of a completed step: its stored result
  // touches nothing downstream.
  const completed = once(() => keyCompleted(ctx, key));
  const { pauseGate, breakerGate } = stored;
  const estimate = request.estimatedCostMicros ?? (await estimateStepCost(ctx.db, request.agent, request.step));
  if (pauseGate.kind === 'paused' && !(await completed())) {
    await taskSeen();
    await countPausedBegin(ctx.db, pauseGate.pause.id, request.taskId, now);
    return pausedWait(pauseGate.pause, pausedRetryAfterMs(pauseGate.pause, now), false);
  }
  if (breakerGate.kind === 'open' && !(await completed())) {
    await taskSeen();
    return circuitOpenWait(breakerGate.breaker, breakerGate.retryAfterMs);
  }
  const gates = {
    ramps: pauseGate.kind === 'ramping' ? pauseGate.ramps : [],
    probes: breakerGate.kind === 'probing' ? breakerGate.breakers : [],
  };

  let decided: Decided;
  try {
    decided = await retryOnDeadlock(ctx.db, () =>
      ctx.db.transaction(async (tx) => {
        // A new task's row is sent with the claim, not before it: the claim does not depend on it.
        const names = stored.task ?? taskMadeInBegin(ctx, tx, request, parsed.queue, now);
        const answer = await claimAndGate(tx, request, names, key, estimate, now, gates, {
          begunBy: ctx.actor?.id ?? null,
          source: attemptSourceOf(ctx),
        });
        // Known once committed: a rolled-back transaction made no task.
        return { answer, madeHere: stored.task ? undefined : await names };
      }),
    ).then(({ answer, madeHere }) => {
      task ??= madeHere;
      return answer;
    });
  } catch (error) {
    if (error instanceof TaskIdTakenMeanwhile) {
      // Another agent's request stored the id between the reads and the new task's row: this agent's is its alias.
      return beginStep(ctx, { ...input, taskId: aliasOf(parsed.agent, parsed.taskId) });
    }
    if (error instanceof BeginRefused) {
      await taskSeen();
      decided = error.refusal;
    } else if (error instanceof KeyPayloadMismatchError) {
      const { owner } = await taskSeen();
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
        detail: error.message,
        holdId: hold.id,
      };
    } else throw error;
  }
  const owner = (await taskSeen()).owner;

  switch (decided.kind) {
    case 'answer':
      return decided.answer;
    case 'uncertain': {
      const { hold } = await openHold(
        { db: ctx.db, actor },
        {
          itemType: 'key',
          itemId: key,
          reason: 'uncertain_outcome',
          owner,
          detail: `Step ${request.step} started at ${decided.intentAt.toISOString()} and never reported back; its downstream cannot deduplicate, so check whether the side effect happened before resuming`,
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
    case 'pool_empty':
      await countBudgetRefusal(ctx, request.agent, request.step, 'pool', now);
      await countPoolUsage(ctx.db, request.agent, request.step, now, 'refusals');
      return {
        decision: 'wait',
        code: 'RETRY_BUDGET_EXHAUSTED',
        retryAfterMs: decided.grant.retryAfterMs,
        detail: decided.grant.detail,
      };
    case 'circuit_open':
      return circuitOpenWait(decided.breaker, decided.retryAfterMs);
    case 'ramp_full':
      await countPausedBegin(ctx.db, decided.ramp.id, request.taskId, now);
      return pausedWait(decided.ramp, rampMinute(decided.ramp, now).nextMinuteInMs, true);
    case 'task_not_active':
      return stopForTaskState(ctx, request.taskId, decided.status);
    case 'exhausted': {
      await countBudgetRefusal(ctx, request.agent, request.step, refusalLabel[decided.reason], now);
      const { failure, attemptNumber } = await stepSoFar(ctx, key, decided.detail);
      return exhaustTask(
        ctx.db,
        actor,
        {
          taskId: request.taskId,
          agent: request.agent,
          step: request.step,
          queue: request.queue,
          payload: request.content ?? null,
          owner,
          attemptNumber,
        },
        decided.reason,
        failure,
        decided.detail,
      );
    }
  }
}

/**
 * Whether the caller may begin a step of this task, by the one rule for tasks (task-agent.ts), before anything
 * is written: an existing task is judged by its stored agent and queue, a new one by the request's names (it is
 * stored with them), its parent by the parent's.
 */
async function authorizeBegin(ctx: CoreContext, request: BeginStepRequest, stored: TaskNames | undefined) {
  const claimed = { taskId: request.taskId, agent: request.agent, queue: request.queue };
  if (!stored) {
    stepActor(ctx, request.agent, request.queue ?? request.agent);
    if (request.parentTaskId !== undefined) await authorizeParent(ctx, request.taskId, request.parentTaskId);
  }
  await authorizeTaskAgent(ctx, stored && { taskId: request.taskId, ...stored }, claimed);
}

/**
 * A new task's row, made in the begin's transaction. Two first begins naming different agents race on the
 * insert: the loser waits for the winner to commit, and is judged against the winner's row.
 */
async function taskMadeInBegin(
  ctx: CoreContext,
  tx: Transaction,
  request: BeginStepRequest & { queue: string },
  /** The queue the request named, if it named one: a queue left out is not compared. */
  claimedQueue: string | undefined,
  now: Date,
): Promise<TaskNames> {
  const { task, made } = await taskOnBegin(tx, request, now, defaultOwnerOf(ctx));
  if (!made && task.agent !== request.agent && aliasAgentOf(request.taskId) === undefined)
    throw new TaskIdTakenMeanwhile();
  const claimed = { taskId: request.taskId, agent: request.agent, queue: claimedQueue };
  // A task made here may have taken the queue a span or an attempt report stored it with: judged like any other.
  if (!made || task.queue !== request.queue)
    await authorizeTaskAgent(ctx, { taskId: request.taskId, ...task }, claimed);
  return task;
}

/**
 * A new task may name as its parent only a task Holdfast has seen, of an agent the caller may act for (by the
 * parent's stored agent and queue): a token limited to one agent cannot hang tasks under another agent's.
 */
async function authorizeParent(ctx: CoreContext, taskId: string, parentTaskId: string): Promise<void> {
  if (parentTaskId === taskId) {
    throw new InvalidInputError('A task cannot be its own parent', { parentTaskId: ['must be another task'] });
  }
  const parent = await readTaskBudget(ctx.db, parentTaskId);
  if (!parent) {
    throw new InvalidInputError(`No task ${parentTaskId} has begun a step`, {
      parentTaskId: ['must be a task that has begun a step'],
    });
  }
  stepActor(ctx, parent.agent, parent.queue);
}

/** Runs `read` at most once, when first asked. */
function once<T>(read: () => Promise<T>): () => Promise<T> {
  let answer: Promise<T> | undefined;
  return () => {
    answer ??= read();
    return answer;
  };
}

/** The wait an open (or half-open, its probes taken) breaker answers, naming the breaker. */
function circuitOpenWait(breaker: BreakerFacts, retryAfterMs: number): BeginAnswer {
  const why =
    breaker.failureShare !== null && breaker.volume !== null
      ? ` (${Math.round(breaker.failureShare * 100)}% of ${breaker.volume} attempts failed as the downstream failing)`
      : '';
  return {
    decision: 'wait',
    code: 'CIRCUIT_OPEN',
    retryAfterMs,
    detail:
      breaker.state === 'open'
        ? `The circuit for ${breaker.target} is open${why}: begin again after the next probe, at ${breaker.probeAt}`
        : `The circuit for ${breaker.target} is half-open and its probes are running: begin again shortly`,
    breaker: {
      target: breaker.target,
      state: breaker.state,
      openedAt: breaker.openedAt,
      probeAt: breaker.probeAt,
      failureShare: breaker.failureShare,
      volume: breaker.volume,
    },
  };
}

async function keyCompleted(ctx: CoreContext, key: string): Promise<boolean> {
  const [row] = await ctx.db
    .select({ status: idempotencyKeys.status })
    .from(idempotencyKeys)
    .where(eq(idempotencyKeys.key, key));
  return row?.status === 'completed';
}

/** The wait a pause (or a resume's ramp, its minute's share taken) answers, naming the pause. */
function pausedWait(pause: PauseFacts, retryAfterMs: number, ramping: boolean): BeginAnswer {
  const until = pause.endsAt ? ` until ${pause.endsAt}` : ' until someone resumes it';
  return {
    decision: 'wait',
    code: 'PAUSED',
    retryAfterMs,
    detail: ramping
      ? `${pause.target} is resuming slowly after a pause: this minute's begins are taken; begin again in the next minute`
      : `${pause.target} is paused by ${pause.pausedBy}${until}: ${pause.reason}`,
    pause: {
      id: pause.id,
      target: pause.target,
      reason: pause.reason,
      pausedBy: pause.pausedBy,
      until: pause.endsAt,
      ramping,
    },
  };
}

/**
 * The bounded `reason` label of a budget refusal (holdfast_budget_refusals_total).
 * A begin is refused only for the first three (whyBudgetRefused); the other two
 * end a step at its finish, and are listed so the map stays exhaustive.
 */
const refusalLabel = {
  retry_ceiling: 'retries',
  corrective_retry_used: 'retries',
  budget_exhausted: 'spend',
  deadline_passed: 'deadline',
  permanent_error: 'permanent',
} as const satisfies Record<ExhaustionReason, string>;

/**
 * Counts a begin refused for want of budget: +1 to its running total and to
 * the current minute's count (the budget-refusal alert's rate), one statement.
 * It runs after the refused transaction rolled back, or the count would vanish
 * with it. A failure here is swallowed: the refusal is the agent's answer and
 * the dead letter or wait it gets must not turn into an error because a
 * metric could not be written; a lost count only understates a counter.
 */
async function countBudgetRefusal(
  ctx: CoreContext,
  agent: string,
  step: string,
  reason: (typeof refusalLabel)[ExhaustionReason] | 'pool',
  now: Date,
): Promise<void> {
  try {
    await ctx.db.execute(sql`
      with minute as (
        insert into budget_refusal_minutes (minute, agent, step, reason, refusals)
        values (date_trunc('minute', ${now.toISOString()}::timestamptz, 'UTC'), ${agent}::text, ${step}::text, ${reason}::text, 1)
        on conflict (minute, agent, step, reason) do update set refusals = budget_refusal_minutes.refusals + 1
      )
      insert into budget_refusal_totals (agent, step, reason, refusals)
      values (${agent}::text, ${step}::text, ${reason}::text, 1)
      on conflict (agent, step, reason) do update set refusals = budget_refusal_totals.refusals + 1`);
  } catch {
    // See above: the answer to the agent does not depend on the count.
  }
}

/** The claim and every gate, in one transaction; a refusal throws BeginRefused and rolls it all back. */
async function claimAndGate(
  tx: Transaction,
  begin: BeginStepRequest & { queue: string },
  /** The task's stored names: its row as read, or being made in this transaction. */
  task: TaskNames | Promise<TaskNames>,
  key: string,
  estimate: number,
  now: Date,
  /** Resumes ramping up that cover this step (each must have room in its minute), and half-open breakers (each must grant a probe). */
  gates: { ramps: readonly RampingPause[]; probes: BreakerFacts[] },
  /** The token or person beginning the step (its key's settler), and how the attempt reaches Holdfast. */
  by: { begunBy: string | null; source: 'http' | 'library' },
): Promise<Decided> {
  // Both settle before either is read: the task's authorization (a concurrent first begin of another agent may
  // have made it) speaks before anything the claim found.
  const [made, claimed] = await Promise.allSettled([
    task,
    // Its values were validated with the begin's (beginStepInput): not parsed again.
    claimCheckedKey(
      { db: tx },
      {
        key,
        scope: 'step',
        requestHash: hashContent(begin.content ?? null),
        holder: begin.runKey,
        inProgressTtlMs: begin.inProgressTtlMs,
        downstreamIdempotent: begin.downstreamIdempotent,
        taskId: begin.taskId,
        step: begin.step,
      },
    ),
  ]);
  if (made.status === 'rejected') throw made.reason;
  if (claimed.status === 'rejected') throw claimed.reason;
  const [names, claim] = [made.value, claimed.value];
  const request = { ...begin, agent: names.agent, queue: names.queue };
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
    case 'acquired':
      break;
  }
  for (const ramp of gates.ramps) {
    if (!(await takeRampGrant(tx, ramp, now))) throw new BeginRefused({ kind: 'ramp_full', ramp });
  }
  if (gates.probes.length > 0) {
    const refused = await takeProbes(tx, gates.probes, now);
    if (refused) throw new BeginRefused({ kind: 'circuit_open', ...refused });
  }

  const attempt = { key, attemptNumber: claim.attemptNumber, estimate, now };
  const { previousStartedAt, budget } = await writeBegin(tx, request, attempt, by);
  const gated = { attemptNumber: claim.attemptNumber, previousStartedAt };
  if (!budget) throw new BeginRefused(await whyBudgetRefused(tx, request.taskId, gated, estimate, now));

  // A redriven step's first attempt is a retry in the log (attempt 2+) but not of this allowance: no pool is
  // asked. A first attempt was counted in its pools' usage by writeBegin.
  if (budget.charged_retry) {
    const grant = await takeRetryFromPools(tx, request.agent, request.step, now);
    if (!grant.granted) throw new BeginRefused({ kind: 'pool_empty', grant });
  }
  return {
    kind: 'answer',
    answer: {
      decision: 'run',
      key,
      attemptNumber: claim.attemptNumber,
      fencingToken: claim.fencingToken,
      reservedMicros: estimate,
      ...allowanceLeft(budget, now),
    },
  };
}

/** An attempt as the task's gate sees it: its number, and when the key's previous attempt began. */
interface GatedAttempt {
  attemptNumber: number;
  previousStartedAt: string | null;
}

async function whyBudgetRefused(
  tx: Transaction,
  taskId: string,
  attempt: GatedAttempt,
  estimate: number,
  now: Date,
): Promise<Refusal> {
  const [task] = await tx.execute<BudgetRow & { charges_retry: boolean }>(sql`
    select ${sql.raw(BUDGET_COLUMNS)}, ${chargesRetrySql({
      attemptNumber: sql`${attempt.attemptNumber}`,
      previousStartedAt: sql`${attempt.previousStartedAt}`,
      lastRedriveAt: sql`last_redrive_at`,
    })} as charges_retry
    from task_budgets where task_id = ${taskId}::text`);
  if (!task) throw new Error(`beginStep: task "${taskId}" has no budget`);
  if (task.status !== 'active') return { kind: 'task_not_active', status: task.status };
  if (new Date(task.deadline) <= now) {
    return {
      kind: 'exhausted',
      reason: 'deadline_passed',
      detail: `the task's deadline ${new Date(task.deadline).toISOString()} has passed`,
    };
  }
  if (task.charges_retry && task.retries_used >= task.retry_allowance) {
    return {
      kind: 'exhausted',
      reason: 'retry_ceiling',
      detail: `no retry left: ${task.retries_used} of ${task.retry_allowance} used`,
    };
  }
  return {
    kind: 'exhausted',
    reason: 'budget_exhausted',
    detail: `no room under the spend ceiling: spent ${task.spend_micros}, reserved ${task.reserved_micros}, this attempt needs ${estimate} of ${task.spend_ceiling_micros} micro-dollars (and nothing begins once the ceiling is reached)`,
  };
}

/** A stop for a task that is not active, with the hold or dead letter a person acts on. */
async function stopForTaskState(ctx: CoreContext, taskId: string, status: TaskStatus): Promise<StopAnswer> {
  if (status === 'frozen') {
    const [hold] = await ctx.db
      .select({ id: holds.id })
      .from(holds)
      .where(and(eq(holds.itemType, 'task'), eq(holds.itemId, taskId), eq(holds.status, 'open')));
    return {
      decision: 'stop',
      code: 'TASK_FROZEN',
      reason: 'task_frozen',
      detail: `Task "${taskId}" is frozen; its owner resumes it by clearing its hold`,
      holdId: hold?.id,
    };
  }
  if (status === 'dead_lettered') {
    const [letter] = await ctx.db
      .select({ id: deadLetters.id })
      .from(deadLetters)
      .where(and(eq(deadLetters.taskId, taskId), eq(deadLetters.status, 'pending')));
    const [hold] = letter
      ? await ctx.db
          .select({ id: holds.id })
          .from(holds)
          .where(and(eq(holds.itemType, 'dead_letter'), eq(holds.itemId, String(letter.id)), eq(holds.status, 'open')))
      : [];
    return {
      decision: 'stop',
      code: 'DO_NOT_RETRY',
      reason: 'task_dead_lettered',
      detail: `Task "${taskId}" is dead-lettered; it runs again only when a person redrives it`,
      deadLetterId: letter?.id,
      holdId: hold?.id,
    };
  }
  return {
    decision: 'stop',
    code: 'TASK_FINISHED',
    reason: 'task_finished',
    detail: `Task "${taskId}" is ${status.replace('_', ' ')}; it starts no new step`,
  };
}

/**
 * What the step's key says so far, for the dead letter: its last failure (else
 * the refusal itself) and the attempts made (the refused claim was rolled back).
 */
async function stepSoFar(
  ctx: CoreContext,
  key: string,
  refusal: string,
): Promise<{ failure: { errorClass: ErrorClass; errorText: string }; attemptNumber: number }> {
  const [row] = await ctx.db
    .select({
      errorClass: idempotencyKeys.errorClass,
      errorText: idempotencyKeys.errorText,
      acquisitions: idempotencyKeys.acquisitions,
    })
    .from(idempotencyKeys)
    .where(eq(idempotencyKeys.key, key));
  const failure =
    row?.errorClass && row.errorText
      ? { errorClass: row.errorClass, errorText: row.errorText }
      : { errorClass: 'unknown' as const, errorText: `not begun: ${refusal}` };
  return { failure, attemptNumber: Math.max(1, row?.acquisitions ?? 1) };
}
