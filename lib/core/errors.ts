/**
 * Errors the library raises on purpose. Each carries a stable machine-readable
 * code that transports (HTTP problem responses, server action results) pass on
 * unchanged, so callers can branch on the code instead of parsing messages.
 */
export abstract class HoldfastError extends Error {
  abstract readonly code: string;

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
