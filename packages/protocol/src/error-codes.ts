/**
 * Every machine-readable code Holdfast answers with: the library's errors, the
 * step protocol's wait and stop answers, and the codes the HTTP API, the
 * console's route handlers and the server actions add. Schema only, with no
 * imports, so the library, the transports, the clients and the step protocol
 * can all depend on it without a cycle. A new code goes here first; the HTTP
 * status map (lib/server/problem.ts) then fails to compile until it has a status.
 */
export const errorCodes = [
  // The library's errors (packages/protocol/src/errors.ts).
  'INVALID_INPUT',
  'ATTEMPT_CONFLICT',
  'KEY_PAYLOAD_MISMATCH',
  'STALE_TOKEN',
  'NOT_HOLDER',
  'GUARD_FAILED',
  'NOT_FOUND',
  'STATE_CONFLICT',
  'FORBIDDEN',
  'REDRIVE_REFUSED',
  'TASK_AGENT_MISMATCH',
  // The step protocol's waits (step-protocol.ts's waitCodes) and the claim and slot answers.
  'KEY_IN_PROGRESS',
  'RETRY_BUDGET_EXHAUSTED',
  'PAUSED',
  'CIRCUIT_OPEN',
  'BUDGET_EXHAUSTED',
  'SLOT_HELD',
  // The step protocol's stops (step-protocol.ts's stopCodes); KEY_PAYLOAD_MISMATCH is above.
  'DO_NOT_RETRY',
  'UNCERTAIN_OUTCOME',
  'TASK_FROZEN',
  'TASK_FINISHED',
  // The transports: who is asking, the request itself, its Idempotency-Key, and our side.
  'UNAUTHENTICATED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'REQUEST_IN_PROGRESS',
  'IDEMPOTENCY_KEY_REUSED',
  'RATE_LIMITED',
  'DATABASE_UNAVAILABLE',
  'INTERNAL_ERROR',
] as const;
export type ErrorCode = (typeof errorCodes)[number];

/** True for a string that is one of Holdfast's codes (e.g. a problem body read back by a client). */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (errorCodes as readonly string[]).includes(value);
}
