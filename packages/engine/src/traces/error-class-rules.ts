import { sql } from 'drizzle-orm';
import type { Executor } from '../db/client';
import type { ErrorClass } from '@holdfast/protocol/enums';
import { numberAttribute, textAttribute } from './attribute-values';
import type { ExportedSpan } from './otlp-request';

/**
 * One rule of the table that classes a failed span's error (the error_class_rules table, edited by
 * admins on Settings, Costs and errors): an HTTP status range, or words that `error.type` contains
 * (any one, ignoring case). Words, not patterns: no rule an admin writes can make a match hang.
 */
export interface ErrorClassRule {
  position: number;
  httpStatusFrom: number | null;
  httpStatusTo: number | null;
  errorTypeContains: string[] | null;
  errorClass: ErrorClass;
}

/**
 * The rules as the migrations seed them (packages/engine/drizzle/0029, packages/engine/drizzle/0047), first match by position. Only retryable
 * classes are retried (DOMAIN.md, invariant 8), so what no rule matches is `unknown`, which is not.
 */
export const DEFAULT_ERROR_CLASS_RULES: readonly ErrorClassRule[] = [
  statusRule(10, 429, 429, 'rate_limited'),
  wordsRule(20, ['rate_limit', 'ratelimit', 'rate-limit', 'rate limit', 'too many requests'], 'rate_limited'),
  statusRule(30, 408, 408, 'transient'),
  statusRule(40, 500, 599, 'transient'),
  wordsRule(
    50,
    [
      'timeout',
      'time_out',
      'time-out',
      'timed out',
      'timedout',
      'econnreset',
      'econnrefused',
      'epipe',
      'overloaded',
      'unavailable',
    ],
    'transient',
  ),
  // The class names SDKs put in `error.type` or an exception's `exception.type` when a span has no status: the
  // OpenAI and Anthropic SDKs' (the official OpenTelemetry instrumentation records `InternalServerError` for a
  // call that failed with 500, and no status), the AI SDK's, LangChain's (packages/engine/drizzle/0047).
  wordsRule(52, ['internalservererror', 'internal_server_error', 'apiconnectionerror', 'api_error'], 'transient'),
  wordsRule(
    54,
    [
      'noobjectgenerated',
      'nooutputgenerated',
      'typevalidationerror',
      'jsonparseerror',
      'invalidtoolinput',
      'outputparserexception',
    ],
    'invalid_output',
  ),
  statusRule(60, 400, 499, 'permanent'),
  wordsRule(
    65,
    [
      'badrequesterror',
      'authenticationerror',
      'permissiondeniederror',
      'notfounderror',
      'unprocessableentityerror',
      'invalid_request_error',
      'authentication_error',
      'permission_error',
      'not_found_error',
    ],
    'permanent',
  ),
];

function statusRule(position: number, from: number, to: number, errorClass: ErrorClass): ErrorClassRule {
  return { position, httpStatusFrom: from, httpStatusTo: to, errorTypeContains: null, errorClass };
}

function wordsRule(position: number, words: string[], errorClass: ErrorClass): ErrorClassRule {
  return { position, httpStatusFrom: null, httpStatusTo: null, errorTypeContains: words, errorClass };
}

/** The stored rules, in order. */
export async function readErrorClassRules(db: Executor): Promise<ErrorClassRule[]> {
  const rows = await db.execute<{
    position: number;
    http_status_from: number | null;
    http_status_to: number | null;
    error_type_contains: string[] | null;
    error_class: ErrorClass;
  }>(sql`select position, http_status_from, http_status_to, error_type_contains, error_class
    from error_class_rules order by position`);
  return rows.map((row) => ({
    position: row.position,
    httpStatusFrom: row.http_status_from,
    httpStatusTo: row.http_status_to,
    errorTypeContains: row.error_type_contains,
    errorClass: row.error_class,
  }));
}

export interface SpanError {
  status: number | undefined;
  /** `error.type`, or '' when the span has none. */
  type: string;
}

/** The class of the first rule that matches, else `unknown`. */
export function classifyError(error: SpanError, rules: readonly ErrorClassRule[]): ErrorClass {
  const type = error.type.toLowerCase();
  const matches = (rule: ErrorClassRule) =>
    rule.errorTypeContains
      ? rule.errorTypeContains.some((word) => type.includes(word.toLowerCase()))
      : error.status !== undefined && error.status >= rule.httpStatusFrom! && error.status <= rule.httpStatusTo!;
  return rules.find(matches)?.errorClass ?? 'unknown';
}

/**
 * A failed span's class: by its HTTP status, and by `error.type`, else the type of its last `exception` event
 * (the AI SDK and OpenInference record the error class there, not in `error.type`).
 */
export function classifySpanError(span: ExportedSpan, rules: readonly ErrorClassRule[]): ErrorClass {
  const type = textAttribute(span.attributes, 'error.type') || (span.exceptionTypes.at(-1) ?? '');
  return classifyError({ status: httpStatusOf(span), type }, rules);
}

/** `http.response.status_code`, else an `error.type` that is a status number. */
export function httpStatusOf(span: ExportedSpan): number | undefined {
  const type = textAttribute(span.attributes, 'error.type') ?? '';
  return (
    numberAttribute(span.attributes, 'http.response.status_code') ?? (/^\d{3}$/.test(type) ? Number(type) : undefined)
  );
}
