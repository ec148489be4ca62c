import 'server-only';
import { NextResponse } from 'next/server';
import { STOP_CODES, TRY_LATER_CODES } from '@holdfast/protocol/api/endpoints';
import type { ErrorCode } from '@holdfast/protocol/error-codes';
import { HoldfastError, InvalidInputError } from '@holdfast/protocol/errors';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from './database-outage';
import { logUnexpectedError } from './log-error';

/**
 * The HTTP status of every code, and the only one: a code without a status
 * does not compile, and problemResponse refuses a status that is not its code's.
 * "Stop" codes are 4xx a client should not retry as is.
 */
export const statusByCode = {
  INVALID_INPUT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  ATTEMPT_CONFLICT: 409,
  KEY_PAYLOAD_MISMATCH: 409,
  STATE_CONFLICT: 409,
  STALE_TOKEN: 409,
  NOT_HOLDER: 409,
  GUARD_FAILED: 409,
  REDRIVE_REFUSED: 409,
  TASK_AGENT_MISMATCH: 409,
  KEY_IN_PROGRESS: 409,
  RETRY_BUDGET_EXHAUSTED: 409,
  PAUSED: 409,
  CIRCUIT_OPEN: 409,
  BUDGET_EXHAUSTED: 409,
  SLOT_HELD: 409,
  DO_NOT_RETRY: 409,
  UNCERTAIN_OUTCOME: 409,
  TASK_FROZEN: 409,
  TASK_FINISHED: 409,
  REQUEST_IN_PROGRESS: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  DATABASE_UNAVAILABLE: 503,
} as const satisfies Record<ErrorCode, number>;

/** The status a code is answered with. */
export type StatusOf<Code extends ErrorCode> = (typeof statusByCode)[Code];

// lib/api owns the stop and try-later lists; these fail to compile if either names a code that is not an ErrorCode.
const tryLaterCodes: readonly ErrorCode[] = TRY_LATER_CODES;
const stopCodes: readonly ErrorCode[] = STOP_CODES;

/**
 * An RFC 9457 problem response with Holdfast's machine-readable code. Codes
 * that mean "stop" carry `retryable: false`; codes that mean "try later"
 * carry `retryable: true`, `retryAfterSeconds` and a Retry-After header.
 */
export function problemResponse<Code extends ErrorCode>(
  status: StatusOf<Code>,
  code: Code,
  detail: string,
  extra: Record<string, unknown> & { retryAfterSeconds?: number } = {},
): NextResponse {
  const retryable = tryLaterCodes.includes(code) ? true : stopCodes.includes(code) ? false : undefined;
  const headers: Record<string, string> = { 'content-type': 'application/problem+json', 'cache-control': 'no-store' };
  if (extra.retryAfterSeconds !== undefined) headers['retry-after'] = String(extra.retryAfterSeconds);
  return NextResponse.json(
    {
      type: 'about:blank',
      title: code,
      status,
      code,
      detail,
      ...(retryable === undefined ? {} : { retryable }),
      ...extra,
    },
    { status, headers },
  );
}

/** Maps a thrown error to a response; an unexpected error never shows its message. */
export function errorResponse(error: unknown): NextResponse {
  if (error instanceof InvalidInputError) {
    return problemResponse(statusByCode[error.code], error.code, error.message, { fieldErrors: error.fieldErrors });
  }
  if (error instanceof HoldfastError) {
    return problemResponse(statusByCode[error.code], error.code, error.message);
  }
  if (isDatabaseUnavailable(error)) return databaseUnavailableResponse();
  logUnexpectedError(error);
  return problemResponse(500, 'INTERNAL_ERROR', 'Something went wrong on the server; it has been logged.');
}

/** 503 while PostgreSQL is unreachable: nothing is wrong with the request, so come back shortly. */
export function databaseUnavailableResponse(): NextResponse {
  return problemResponse(503, 'DATABASE_UNAVAILABLE', 'The database is unavailable right now; try again shortly', {
    retryable: true,
    retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
  });
}
