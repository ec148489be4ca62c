import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorClasses, type ErrorClass } from '@holdfast/protocol/enums';
import { errorClassOfStatus, StepError } from '../step-loop';
import { META_ERROR_CLASS, META_RETRY_AFTER_MS } from './meta-fields';

/**
 * A tool's error result (`isError: true`) as a failed attempt: its error
 * class, its text and any Retry-After. MCP gives a tool error no class, so the
 * gateway reads one, in this order (first match wins):
 *
 * 1. the result's `_meta["io.holdfast/errorClass"]`, for a server that knows;
 * 2. an HTTP status from 400 to 599 at the start of the text or right after
 *    "HTTP", "status" or "code": 429 rate_limited, 408 and 5xx transient,
 *    other 4xx permanent (the same rule as the other adapters);
 * 3. words: "rate limit", "too many requests" rate_limited; "timed out",
 *    "timeout", "deadline exceeded" timeout; "temporarily", "unavailable",
 *    "overloaded", "try again", "connection reset", "ECONNRESET",
 *    "ECONNREFUSED" transient; "invalid", "not found", "forbidden",
 *    "unauthorized", "permission denied", "not allowed", "validation" permanent;
 * 4. anything else is `unknown`, which Holdfast never retries.
 *
 * A Retry-After comes from `_meta["io.holdfast/retryAfterMs"]`, else from
 * "retry after N" (seconds, or N ms) in the text.
 */
export function stepErrorOfToolResult(result: CallToolResult, costMicros = 0): StepError {
  const text = errorTextOf(result);
  return new StepError(errorClassOfToolResult(result, text), text, {
    retryAfterMs: retryAfterMsOf(result, text),
    costMicros,
  });
}

/** The longest error text Holdfast keeps (packages/protocol/src/steps/step-protocol.ts). */
const MAX_ERROR_TEXT = 10_000;

/** The text blocks of the result, else its structured content, else a sentence: a failure's text is never blank. */
export function errorTextOf(result: CallToolResult): string {
  const texts = (result.content ?? [])
    .flatMap((block) => (block.type === 'text' ? [block.text] : []))
    .join('\n')
    .trim();
  const text =
    texts ||
    (result.structuredContent ? JSON.stringify(result.structuredContent) : '') ||
    'the tool answered isError with no text';
  return text.length <= MAX_ERROR_TEXT ? text : `${text.slice(0, MAX_ERROR_TEXT - 1)}…`;
}

const STATUS_IN_TEXT = /(?:^\s*|\b(?:HTTP(?:\/\d(?:\.\d)?)?|status|code)\b\W{0,3})([45]\d\d)\b/i;

const WORD_RULES: [RegExp, ErrorClass][] = [
  [/rate[ -]?limit|too many requests/i, 'rate_limited'],
  [/timed out|time-?out|deadline exceeded/i, 'timeout'],
  [/temporar(?:il)?y|unavailable|overloaded|try again|connection reset|ECONNRESET|ECONNREFUSED/i, 'transient'],
  [/invalid|not found|forbidden|unauthori[sz]ed|permission denied|not allowed|validation/i, 'permanent'],
];

function errorClassOfToolResult(result: CallToolResult, text: string): ErrorClass {
  const stated = result._meta?.[META_ERROR_CLASS];
  if (typeof stated === 'string' && (errorClasses as readonly string[]).includes(stated)) return stated as ErrorClass;
  const status = STATUS_IN_TEXT.exec(text)?.[1];
  if (status) return errorClassOfStatus(Number(status));
  return WORD_RULES.find(([pattern]) => pattern.test(text))?.[1] ?? 'unknown';
}

const RETRY_AFTER_IN_TEXT = /retry[ -]after\W{0,3}(\d+(?:\.\d+)?)\s*(ms|milliseconds?)?/i;
/** Holdfast's ceiling on a Retry-After (24 hours). */
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

function retryAfterMsOf(result: CallToolResult, text: string): number | undefined {
  const stated = result._meta?.[META_RETRY_AFTER_MS];
  const found = RETRY_AFTER_IN_TEXT.exec(text);
  const ms = typeof stated === 'number' ? stated : found ? Number(found[1]) * (found[2] ? 1 : 1_000) : undefined;
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) return undefined;
  return Math.min(Math.round(ms), MAX_RETRY_AFTER_MS);
}
