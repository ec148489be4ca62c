import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { HoldfastApiError } from '../../api-error';
import type { HoldfastClient } from '../../client-types';
import { runStep } from '../../run-step';
import type { RunStepOutcome, StepAttempt, StepBody } from '@holdfast/protocol/steps/step-outcome';
import type { BeginStepInput } from '@holdfast/protocol/steps/step-protocol';
import type { Sleep } from '../step-loop';
import { holdfastFailedAnswer, outcomeUnknownAnswer, stopAnswer, tryLaterAnswer } from './tool-answers';
import { stepErrorOfToolResult } from './tool-error-class';
import { upstreamFailureOf } from './upstream-failure';
import { META_FIRST_RUN_AT, META_REPLAYED } from './meta-fields';
import type { McpCallOutcome } from '@holdfast/protocol/inputs/mcp-gateway-report-input';

/**
 * One guarded tools/call as a Holdfast step, run until it has an answer for
 * the caller. runStep begins the step and calls the tool only when Holdfast
 * says run; a completed or replayed step answers its stored CallToolResult.
 * Waits are sat out inside the call, up to `maxWaitMs` in all, so concurrent
 * identical callers all get the first one's result; past that bound the caller
 * gets a "try again" tool error with the time to wait. step-loop's
 * runStepToEnd does not fit here: it waits out a KEY_IN_PROGRESS for its whole
 * Retry-After (the rest of the in-progress TTL, a minute or more) and bounds
 * each wait, not their sum.
 */
export interface GuardedCallContext {
  holdfast: HoldfastClient;
  /** The tool's owner: holds for this call go to them. */
  owner: string;
  server: string;
  tool: string;
  /** The longest a call waits in the gateway, all waits together, before it answers "try again". */
  maxWaitMs: number;
  /** What an answered call costs, in micro-dollars: its price per call, and per unit its result counts. */
  costOf: (result: CallToolResult) => number;
  /** Told what an answered call cost, for the tool's spend limit. */
  charged?: (costMicros: number) => void;
  /** Told how the call ended, for the gateway's report (gateway-report.ts). */
  ended?: (outcome: McpCallOutcome) => void;
  sleep: Sleep;
  now: () => number;
  random: () => number;
  log: (line: string) => void;
}

/** Polls of a call in flight start here and grow by half each time, to at most a second. */
const FIRST_POLL_MS = 100;
const LONGEST_POLL_MS = 1_000;

/**
 * The finish runStep would send is withheld when the tool's outcome is unknown:
 * the attempt is left running, and once its in-progress TTL passes Holdfast
 * treats it as uncertain (downstreamIdempotent is false) and repeats it never.
 * Reporting any failure instead could let Holdfast grant a retry, which would
 * repeat a side effect that may have happened.
 */
class FinishWithheld extends Error {}

export async function runGuardedCall(
  context: GuardedCallContext,
  begin: BeginStepInput,
  callTool: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const deadline = context.now() + context.maxWaitMs;
  let pollMs = FIRST_POLL_MS;
  for (;;) {
    // What this attempt saw: whether it ran, what the tool (or the server, or the connection to it) answered,
    // and why its outcome is unknown.
    let attempt: StepAttempt | undefined;
    let answered: CallToolResult | undefined;
    let unknownCause: string | undefined;
    const body: StepBody<CallToolResult> = async (begun) => {
      attempt = begun;
      let result: CallToolResult;
      try {
        result = await callTool();
      } catch (error) {
        const failure = upstreamFailureOf(error);
        if (!failure.known) {
          unknownCause = failure.cause;
          throw error;
        }
        // A failure the caller should read, as the tool's own error would be.
        answered = { content: [{ type: 'text', text: failure.error.message }], isError: true };
        throw failure.error;
      }
      answered = result;
      // A call the server answered is billed at the tool's price, success or tool error alike; the stored copy
      // keeps when it ran, for the replays to say.
      const costMicros = context.costOf(result);
      context.charged?.(costMicros);
      if (result.isError) throw stepErrorOfToolResult(result, costMicros);
      return { result: withFirstRunAt(result, new Date(context.now())), costMicros };
    };
    const holdfast: HoldfastClient = {
      ...context.holdfast,
      finishStep: (report, options) =>
        unknownCause === undefined
          ? context.holdfast.finishStep(report, options)
          : Promise.reject(new FinishWithheld()),
    };

    let outcome: RunStepOutcome<CallToolResult>;
    try {
      outcome = await runStep(holdfast, begin, body);
    } catch (error) {
      if (error instanceof FinishWithheld && attempt && unknownCause !== undefined) {
        context.ended?.('stopped');
        return outcomeUnknown(context, attempt.key, unknownCause);
      }
      // Holdfast busy before anything ran (its rate limit, a moment's outage it answers 503 for): sat out like a
      // wait, inside the bound, since many callers polling one call in flight are what fills a rate limit.
      const busyMs =
        attempt === undefined && error instanceof HoldfastApiError && error.retryable
          ? (error.retryAfterSeconds ?? 1) * 1_000
          : undefined;
      if (busyMs !== undefined && busyMs <= deadline - context.now()) {
        await context.sleep(busyMs);
        continue;
      }
      context.ended?.('holdfast_failed');
      return holdfastFailed(context, error, attempt, answered);
    }

    let waitMs: number;
    let waiting: { code: string; detail: string };
    switch (outcome.status) {
      case 'completed':
        context.ended?.('ran');
        return withoutFirstRunAt(outcome.result);
      case 'replayed':
        context.ended?.('replayed');
        return asReplayed(outcome.result);
      case 'stop':
        // A stop after the tool answered a success is a result Holdfast could not store (too large, not
        // storable text): the tool did act, so its answer goes to the caller rather than an error that
        // would invite a second try.
        context.ended?.(answered && !answered.isError ? 'ran' : 'stopped');
        if (answered && !answered.isError) {
          context.log(`${begin.step}: the tool's result was not stored (${outcome.detail}); answering it unstored`);
          return answered;
        }
        return stopAnswer(outcome, context.owner, answered);
      case 'retry':
        waitMs = outcome.delayMs;
        waiting = { code: 'RETRY_DELAYED', detail: `attempt ${outcome.attemptNumber + 1} is due after a backoff` };
        break;
      case 'wait':
        // The same call in flight: poll, however long the rest of its TTL, so the callers get its result as
        // soon as it is stored. An empty retry pool: its Retry-After is when it has room again.
        waitMs =
          outcome.code === 'KEY_IN_PROGRESS'
            ? Math.min(outcome.retryAfterMs, pollMs * (0.5 + context.random() / 2))
            : outcome.retryAfterMs;
        if (outcome.code === 'KEY_IN_PROGRESS') pollMs = Math.min(pollMs * 1.5, LONGEST_POLL_MS);
        waiting = { code: outcome.code, detail: outcome.detail };
        break;
    }
    const left = deadline - context.now();
    if (waitMs > left) {
      // A call in flight may end any moment: its caller is told to come back within the wait bound, not at the
      // end of its TTL.
      const retryAfterMs =
        outcome.status !== 'wait'
          ? waitMs
          : outcome.code === 'KEY_IN_PROGRESS'
            ? Math.min(outcome.retryAfterMs, Math.max(context.maxWaitMs, 1_000))
            : outcome.retryAfterMs;
      context.ended?.('waited');
      return tryLaterAnswer(waiting.code, Math.max(retryAfterMs, 1), waiting.detail, answered);
    }
    await context.sleep(Math.max(0, Math.round(waitMs)));
  }
}

/** Opens the hold at once, so the owner hears of it now rather than at the next try or the escalation sweep. */
async function outcomeUnknown(context: GuardedCallContext, key: string, cause: string): Promise<CallToolResult> {
  let holdId: number | undefined;
  try {
    const opened = await context.holdfast.openHold({
      itemType: 'key',
      itemId: key,
      reason: 'uncertain_outcome',
      owner: context.owner,
      detail:
        `${context.tool} was sent to the MCP server ${context.server} and its answer was lost (${cause}). ` +
        'Check whether it took effect before resuming; the gateway will not repeat it.',
    });
    holdId = opened.hold.id;
  } catch (error) {
    // The key stays in progress and becomes uncertain at its TTL; the next try or the sweep opens the hold.
    context.log(`${key}: could not open the uncertain_outcome hold now (${messageOf(error)})`);
  }
  return outcomeUnknownAnswer(context.server, context.tool, cause, context.owner, holdId);
}

/**
 * Holdfast refused a request or could not be reached. Before the tool ran, the
 * call was not made. After it ran, only the record is missing (the finish
 * failed): the caller gets what the tool answered, and the attempt, left
 * running, becomes uncertain for a person at its TTL.
 */
function holdfastFailed(
  context: GuardedCallContext,
  error: unknown,
  attempt: StepAttempt | undefined,
  answered: CallToolResult | undefined,
): CallToolResult {
  if (attempt && answered) {
    context.log(`${attempt.key}: the tool answered but Holdfast did not record it (${messageOf(error)})`);
    return answered;
  }
  if (error instanceof HoldfastApiError) {
    const retryAfterMs = error.retryable ? (error.retryAfterSeconds ?? 1) * 1_000 : undefined;
    return holdfastFailedAnswer(`${error.code}: ${error.detail}`, retryAfterMs, attempt !== undefined);
  }
  context.log(`Holdfast could not be reached: ${messageOf(error)}`);
  return holdfastFailedAnswer(`Holdfast could not be reached: ${messageOf(error)}`, 5_000, attempt !== undefined);
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The result as stored: with when it ran in its `_meta`. */
function withFirstRunAt(result: CallToolResult, ranAt: Date): CallToolResult {
  return { ...result, _meta: { ...result._meta, [META_FIRST_RUN_AT]: ranAt.toISOString() } };
}

function withoutFirstRunAt(result: CallToolResult): CallToolResult {
  if (!result._meta || !(META_FIRST_RUN_AT in result._meta)) return result;
  const { [META_FIRST_RUN_AT]: _ranAt, ...meta } = result._meta;
  const { _meta: _stored, ...rest } = result;
  return Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
}

/** A stored result answered again: it says it is a replay, and when the operation first ran. */
function asReplayed(result: CallToolResult): CallToolResult {
  const ranAt = result._meta?.[META_FIRST_RUN_AT];
  const answer = withoutFirstRunAt(result);
  return {
    ...answer,
    _meta: { ...answer._meta, [META_REPLAYED]: { firstRunAt: typeof ranAt === 'string' ? ranAt : null } },
  };
}
