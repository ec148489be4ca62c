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

const statusByCode: Record<string, number> = {
  INVALID_INPUT: 400,
  ATTEMPT_CONFLICT: 409,
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
