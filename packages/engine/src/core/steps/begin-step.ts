import { eq } from 'drizzle-orm';
import { KeyPayloadMismatchError } from '@holdfast/protocol/errors';
import { deriveKey, hashContent } from '@holdfast/protocol/keys/derive-key';
import { beginStepInput, type BeginAnswer, type BeginStepInput } from '@holdfast/protocol/steps/step-protocol';
import { parseInput } from '@holdfast/protocol/validation';
import { idempotencyKeys } from '../../db/schema';
import { nowOf, type CoreContext } from '../kernel/context';
import { tallyReplay } from '../keys/replay-tally';
import { refuseRawPrefixedTaskId } from '../keys/raw-key-name';
import { aliasOf, refuseForeignAlias, storedTaskIdFor } from '../tasks/task-alias';
import { BeginRefused, claimAndGate, payloadMismatchStop, uncertainStop } from './begin-claim';
import { readBeginFacts } from './begin-reads';
import { authorizeBegin, TaskIdTakenMeanwhile, taskSeenBy } from './begin-task';
import { estimateStepCost } from './cost-estimate';
import { gatesBeforeClaim, type Begin, type Refusal } from './gates';
import { stepActor } from './step-actor';

/**
 * Begins one attempt of a step. Derives and claims its key, then answers:
 * `replay` (the step completed: use its stored result), `wait` (another
 * attempt is running, the retry pool is empty, or a pause holds the step:
 * begin again after retryAfterMs), `stop` (do not go on: uncertain outcome, payload mismatch,
 * a frozen, finished or dead-lettered task, no retry or budget left), or
 * `run`. Every attempt passes the gates (gates/index.ts), first tries too: those decided on the begin's one
 * read, then, in one transaction with the claim, those that take a share (a retry from the task's allowance
 * and from the fleet's pools, the expected spend reserved against the task's ceiling in one guarded UPDATE, so
 * concurrent begins can never reserve past it).
 */
export async function beginStep(ctx: CoreContext, input: BeginStepInput): Promise<BeginAnswer> {
  const parsed = parseInput(beginStepInput, input);
  refuseRawPrefixedTaskId(parsed.taskId);
  refuseForeignAlias(parsed.taskId, parsed.agent);
  const now = nowOf(ctx);
  const key = deriveKey({ taskId: parsed.taskId, step: parsed.step, iteration: parsed.iteration });
  const facts = await readBeginFacts(ctx.db, parsed, key, now);
  // The id is another agent's task: this agent's task of that name is stored under its alias (task-alias.ts).
  const storedId = storedTaskIdFor(parsed.agent, parsed.taskId, facts.registeredAgent);
  if (storedId !== parsed.taskId) return beginStep(ctx, { ...input, taskId: storedId });
  await authorizeBegin(ctx, parsed, facts.task);
  // A repeat of a completed step, its content unchanged: the stored result, once the task's stored agent has
  // authorized the caller, with nothing written (the call is counted later: replay-tally.ts).
  if (facts.completed && facts.requestHash === hashContent(parsed.content ?? null)) {
    tallyReplay(ctx.db, key);
    return { decision: 'replay', key, result: facts.result };
  }
  // The task's stored names stand for the request's (they are equal, or a queue was left out).
  const agent = facts.task?.agent ?? parsed.agent;
  const request = { ...parsed, agent, queue: facts.task?.queue ?? parsed.queue ?? parsed.agent };
  const task = taskSeenBy(ctx, request, facts.task, now);
  const estimate = request.estimatedCostMicros ?? (await estimateStepCost(ctx.db, agent, request.step));
  const actor = stepActor(ctx, agent, request.queue);
  const begin: Begin = { ctx, request, key, now, estimate, actor, facts, taskSeen: task.seen };

  const completed = once(() => keyCompleted(ctx, key));
  for (const gate of gatesBeforeClaim) {
    const refusal = gate.check(begin);
    if (refusal && !(await completed())) return answerRefusal(begin, refusal);
  }
  try {
    const claimed = await claimAndGate(begin, parsed.queue, task.remember);
    return claimed.kind === 'answer' ? claimed.answer : await uncertainStop(begin, claimed.intentAt);
  } catch (error) {
    // Another agent's request stored the id between the reads and the new task's row: this agent's is its alias.
    if (error instanceof TaskIdTakenMeanwhile) {
      return beginStep(ctx, { ...input, taskId: aliasOf(parsed.agent, parsed.taskId) });
    }
    if (error instanceof BeginRefused) return answerRefusal(begin, error.refusal);
    if (error instanceof KeyPayloadMismatchError) return payloadMismatchStop(begin, error.message);
    throw error;
  }
}

/** A refused begin still leaves its task seen; then the gate answers (its counts, holds and dead letters stay). */
async function answerRefusal(begin: Begin, refusal: Refusal): Promise<BeginAnswer> {
  await begin.taskSeen();
  return refusal.answer(begin);
}

/** Runs `read` at most once, when first asked. */
function once<T>(read: () => Promise<T>): () => Promise<T> {
  let answer: Promise<T> | undefined;
  return () => {
    answer ??= read();
    return answer;
  };
}

async function keyCompleted(ctx: CoreContext, key: string): Promise<boolean> {
  const [row] = await ctx.db
    .select({ status: idempotencyKeys.status })
    .from(idempotencyKeys)
    .where(eq(idempotencyKeys.key, key));
  return row?.status === 'completed';
}
