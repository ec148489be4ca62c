import 'server-only';
import { NextResponse } from 'next/server';
import { STOP_CODES, TRY_LATER_CODES } from '../api/endpoints';
import { HoldfastError, InvalidInputError } from '../core/errors';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from './database-outage';

/**
 * An RFC 9457 problem response with Holdfast's machine-readable code. Codes
 * that mean "stop" carry `retryable: false`; codes that mean "try later"
 * carry `retryable: true`, `retryAfterSeconds` and a Retry-After header.
 */
export function problemResponse(
  status: number,
  code: string,
  detail: string,
  extra: Record<string, unknown> & { retryAfterSeconds?: number } = {},
): NextResponse {
  const retryable = (TRY_LATER_CODES as readonly string[]).includes(code) ? true : (STOP_CODES as readonly string[]).includes(code) ? false : undefined;
  const headers: Record<string, string> = { 'content-type': 'application/problem+json', 'cache-control': 'no-store' };
  if (extra.retryAfterSeconds !== undefined) headers['retry-after'] = String(extra.retryAfterSeconds);
  return NextResponse.json({ type: 'about:blank', title: code, status, code, detail, ...(retryable === undefined ? {} : { retryable }), ...extra }, { status, headers });
}

/** HTTP status per library error code; "stop" codes are 4xx a client should not retry as is. */
const statusByCode: Record<string, number> = {
  INVALID_INPUT: 400,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  ATTEMPT_CONFLICT: 409,
  KEY_PAYLOAD_MISMATCH: 409,
  STATE_CONFLICT: 409,
  STALE_TOKEN: 409,
  NOT_HOLDER: 409,
  GUARD_FAILED: 409,
  KEY_IN_PROGRESS: 409,
  UNCERTAIN_OUTCOME: 409,
  SLOT_HELD: 409,
  REQUEST_IN_PROGRESS: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  REDRIVE_REFUSED: 409,
};

/** Maps a thrown error to a response; an unexpected error never shows its message. */
export function errorResponse(error: unknown): NextResponse {
  if (error instanceof InvalidInputError) {
    return problemResponse(400, error.code, error.message, { fieldErrors: error.fieldErrors });
  }
  if (error instanceof HoldfastError) {
    return problemResponse(statusByCode[error.code] ?? 422, error.code, error.message);
  }
  if (isDatabaseUnavailable(error)) return databaseUnavailableResponse();
  console.error(error);
  return problemResponse(500, 'INTERNAL_ERROR', 'Something went wrong on the server; it has been logged.');
}

/** 503 while PostgreSQL is unreachable: nothing is wrong with the request, so come back shortly. */
export function databaseUnavailableResponse(): NextResponse {
  return problemResponse(503, 'DATABASE_UNAVAILABLE', 'The database is unavailable right now; try again shortly', {
    retryable: true,
    retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
  });
}
