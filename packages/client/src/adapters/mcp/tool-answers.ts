import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { HoldfastStepStopped, HoldfastStepWaiting } from '../step-loop';
import { META_RETRY_AFTER_MS } from './meta-fields';

/**
 * The tool errors the gateway answers with itself. They are tool results
 * (`isError: true`), not protocol errors, so the model reads them: each begins
 * with what to do ("do not retry: ...", "try again in N s: ..."), then says why,
 * then carries the tool's own error content when the tool answered one.
 */

const text = (value: string) => ({ type: 'text' as const, text: value });

/** The tool's own content after the gateway's sentence, so the model still reads what the tool said. */
const withToolContent = (first: string, answered: CallToolResult | undefined): CallToolResult => ({
  content: [text(first), ...(answered?.content ?? [])],
  isError: true,
});

/** Holdfast said stop: never retried; a person has a hold (or a dead letter) to act on. */
export function stopAnswer(
  stop: { code: string; reason: string; detail: string; holdId?: number; deadLetterId?: number },
  owner: string,
  answered: CallToolResult | undefined,
): CallToolResult {
  const sentence = HoldfastStepStopped.from(stop).message;
  const parked = [
    stop.holdId !== undefined ? `hold ${stop.holdId}` : undefined,
    stop.deadLetterId !== undefined ? `dead letter ${stop.deadLetterId}` : undefined,
  ].filter(Boolean);
  const forWhom = parked.length > 0 ? ` A person acts on it: ${parked.join(', ')}, owner ${owner}.` : '';
  return withToolContent(`${sentence}.${forWhom}`, answered);
}

/** Holdfast said come back later (the same call in flight, a retry's backoff, an empty retry pool). */
export function tryLaterAnswer(
  code: string,
  retryAfterMs: number,
  detail: string,
  answered: CallToolResult | undefined,
): CallToolResult {
  const sentence = new HoldfastStepWaiting(code, retryAfterMs, detail).message;
  return {
    ...withToolContent(`${sentence}. Call again with the same arguments and _meta after that.`, answered),
    _meta: { [META_RETRY_AFTER_MS]: retryAfterMs },
  };
}

/** The call was refused before anything happened: the tool was not called and nothing was recorded. */
export function refusedAnswer(problem: string): CallToolResult {
  return {
    content: [text(`Holdfast gateway refused the call: ${problem}. The tool was not called and nothing was recorded.`)],
    isError: true,
  };
}

/**
 * Holdfast itself refused or could not be reached: before the tool was called,
 * or after it failed (its failure then goes unrecorded).
 */
export function holdfastFailedAnswer(
  problem: string,
  retryAfterMs: number | undefined,
  toolFailed: boolean,
): CallToolResult {
  const advice =
    retryAfterMs === undefined
      ? 'do not retry until the gateway is fixed'
      : `try again in ${Math.max(1, Math.ceil(retryAfterMs / 1000))} s`;
  const tool = toolFailed
    ? 'The tool was called and failed; its failure was not recorded.'
    : 'The tool was not called.';
  return {
    content: [text(`${advice}: Holdfast could not guard the call (${problem}). ${tool}`)],
    isError: true,
    ...(retryAfterMs === undefined ? {} : { _meta: { [META_RETRY_AFTER_MS]: retryAfterMs } }),
  };
}

/**
 * The call went out to the upstream server and its answer was lost: it may or
 * may not have acted. It is never repeated; its owner checks.
 */
export function outcomeUnknownAnswer(
  server: string,
  tool: string,
  cause: string,
  owner: string,
  holdId: number | undefined,
): CallToolResult {
  const hold = holdId === undefined ? 'a hold' : `hold ${holdId}`;
  return {
    content: [
      text(
        `do not retry: ${tool} was sent to ${server} but its answer was lost (${cause}), so whether it took effect is unknown. ` +
          `It will not be repeated; ${owner} checks it (${hold}, UNCERTAIN_OUTCOME, uncertain_outcome).`,
      ),
    ],
    isError: true,
  };
}

/** A rate the gateway was told to keep: the call was not made; the caller may come back when the window turns. */
export function rateLimitedAnswer(limit: string, retryAfterMs: number): CallToolResult {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return {
    content: [text(`try again in ${seconds} s: rate limited, ${limit}. The tool was not called.`)],
    isError: true,
    _meta: { [META_RETRY_AFTER_MS]: retryAfterMs },
  };
}

/** The same call again and again in one session: a loop, stopped before it costs more. */
export function loopAnswer(tool: string, cap: number): CallToolResult {
  return {
    content: [
      text(
        `do not retry: ${tool} was already called ${cap} times with these same arguments in this session, and the ` +
          'gateway stopped the loop. Change the arguments or the approach, or ask a person. The tool was not called.',
      ),
    ],
    isError: true,
  };
}
