import type { ErrorCode } from './error-codes';

/**
 * Errors the library raises on purpose. Each carries a stable machine-readable
 * code that transports (HTTP problem responses, server action results) pass on
 * unchanged, so callers can branch on the code instead of parsing messages.
 */
export abstract class HoldfastError extends Error {
  abstract readonly code: ErrorCode;

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export type FieldErrors = Record<string, string[]>;

/** The input did not match its schema; nothing was written. */
export class InvalidInputError extends HoldfastError {
  readonly code = 'INVALID_INPUT';

  constructor(
    message: string,
    readonly fieldErrors: FieldErrors,
  ) {
    super(message);
  }
}

/** The same attempt was reported twice with different content; the first report stands. */
export class AttemptConflictError extends HoldfastError {
  readonly code = 'ATTEMPT_CONFLICT';
}

/** Same idempotency key, different content: never an overwrite. */
export class KeyPayloadMismatchError extends HoldfastError {
  readonly code = 'KEY_PAYLOAD_MISMATCH';
}

/** A write under a fencing token that is no longer current (a superseded holder). */
export class StaleTokenError extends HoldfastError {
  readonly code = 'STALE_TOKEN';
}

/** A run tried to act on a slot lock another run holds. */
export class NotHolderError extends HoldfastError {
  readonly code = 'NOT_HOLDER';
}

/** A guarded action was refused; `failedGuards` names every guard that did not hold. */
export class GuardFailedError extends HoldfastError {
  readonly code = 'GUARD_FAILED';

  constructor(
    message: string,
    readonly failedGuards: string[],
  ) {
    super(message);
  }
}

export class NotFoundError extends HoldfastError {
  readonly code = 'NOT_FOUND';
}

/** The action conflicts with the item's current state (e.g. clearing a hold another way). */
export class StateConflictError extends HoldfastError {
  readonly code = 'STATE_CONFLICT';
}

/** The actor may not do this (role, ownership or token scope). */
export class ForbiddenError extends HoldfastError {
  readonly code = 'FORBIDDEN';
}

/**
 * The request names an agent or queue other than the ones its task was first
 * seen with. A task belongs to its agent: what is stored decides, never a name
 * in the request, and nothing is written.
 */
export class TaskAgentMismatchError extends HoldfastError {
  readonly code = 'TASK_AGENT_MISMATCH';
}

/** The redrive brakes that can refuse a redrive (see dead-letters/redrive-brakes.ts). */
export const redriveBrakeRules = ['redrive_limit', 'redrive_cooldown', 'task_too_old'] as const;
export type RedriveBrakeRule = (typeof redriveBrakeRules)[number];

/** A redrive was refused by its brakes; `rules` names each one that refused. An admin may override with a reason. */
export class RedriveRefusedError extends HoldfastError {
  readonly code = 'REDRIVE_REFUSED';

  constructor(
    message: string,
    readonly rules: RedriveBrakeRule[],
  ) {
    super(message);
  }
}
