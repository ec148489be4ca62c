import 'server-only';
import { NextResponse } from 'next/server';
import { HoldfastError, InvalidInputError } from '../core/errors';

/** An RFC 9457 problem response with Holdfast's machine-readable code. */
export function problemResponse(
  status: number,
  code: string,
  detail: string,
  extra: Record<string, unknown> = {},
): NextResponse {
  return NextResponse.json(
    { type: 'about:blank', title: code, status, code, detail, ...extra },
    { status, headers: { 'content-type': 'application/problem+json', 'cache-control': 'no-store' } },
  );
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
};

/** Maps a thrown error to a response; an unexpected error never shows its message. */
export function errorResponse(error: unknown): NextResponse {
  if (error instanceof InvalidInputError) {
    return problemResponse(400, error.code, error.message, { fieldErrors: error.fieldErrors });
  }
  if (error instanceof HoldfastError) {
    return problemResponse(statusByCode[error.code] ?? 422, error.code, error.message);
  }
  console.error(error);
  return problemResponse(500, 'INTERNAL_ERROR', 'Something went wrong on the server; it has been logged.');
}
