import type { Executor } from '../../db/client';

/** PostgreSQL's codes for a transaction it aborted to break a deadlock or a serialization conflict. */
const RETRYABLE_CODES = new Set(['40P01', '40001']);
const MAX_TRIES = 3;

/**
 * Runs a transaction again when PostgreSQL aborted it to break a deadlock:
 * the aborted try wrote nothing, so running it again is safe. Rare lock
 * orders (a redrive locks a dead letter and then its task while a finishing
 * attempt holds the task and dead-letters it) end this way instead of in an
 * error. Inside a caller's own transaction nothing is retried: the abort
 * belongs to the caller.
 */
export async function retryOnDeadlock<T>(db: Executor, work: () => Promise<T>): Promise<T> {
  const insideTransaction = 'rollback' in db;
  for (let tries = 1; ; tries += 1) {
    try {
      return await work();
    } catch (error) {
      if (insideTransaction || tries >= MAX_TRIES || !RETRYABLE_CODES.has(postgresCodeOf(error))) throw error;
    }
  }
}

/** The SQLSTATE of a PostgreSQL error, also when drizzle wrapped it (as its `cause`). */
function postgresCodeOf(error: unknown): string {
  for (
    let current = error, depth = 0;
    current && depth < 3;
    current = (current as { cause?: unknown }).cause, depth += 1
  ) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return '';
}
