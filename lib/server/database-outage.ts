/**
 * Tells "PostgreSQL is not there right now" apart from every other error, so
 * that an outage answers 503 + Retry-After (the client should come back)
 * instead of 500 (a bug). No `server-only` here: the fault suite and tests use it too.
 */

/** How long a client should wait before trying again during an outage. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

// postgres.js connection errors (node_modules/postgres/src/errors.js and connection.js)
// and the socket errors it passes on from Node.
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  'DATABASE_DEADLINE',
]);

// SQLSTATE: 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now
// (starting up or in recovery), 53300 too many connections, 57014 a statement
// cancelled by statement_timeout (a database too slow to answer is as good as down),
// 25006 a write refused as read-only: the connection reached a standby (a node that a
// failover or switchover demoted, or a URL without target_session_attrs=primary), so
// no primary is reachable this way right now.
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '57014', '25006']);

/** True when the error, or any error it wraps (drizzle's DrizzleQueryError puts the driver's in `cause`), says the database is unreachable. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    if (saysUnavailable(current as Record<string, unknown>)) return true;
    if (current instanceof AggregateError && current.errors.some((inner) => isDatabaseUnavailable(inner))) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

function saysUnavailable(error: Record<string, unknown>): boolean {
  const code = typeof error.code === 'string' ? error.code : '';
  if (CONNECTION_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
  // SQLSTATE class 08: connection exceptions.
  if (error.name === 'PostgresError' && /^08[0-9A-Z]{3}$/.test(code)) return true;
  // A standby refusing what only a primary does ("cannot access temporary or unlogged relations during
  // recovery": the rate-limit buckets are unlogged) is the same moment without a primary as 25006.
  if (error.name === 'PostgresError' && code === '0A000' && /during recovery$/.test(String(error.message))) return true;
  return false;
}

/** How long a request may wait on the database before it is answered 503. */
export const DATABASE_DEADLINE_MS = 10_000;

let deadlineHook: (() => void) | undefined;

/** What to do when a request's deadline passes: db.ts replaces the pool whose query hung. */
export function whenDeadlinePasses(hook: () => void): void {
  deadlineHook = hook;
}

/** The database did not answer within the request's deadline: as good as down, for the caller. */
export class DatabaseDeadlineError extends Error {
  readonly code = 'DATABASE_DEADLINE';
  constructor(ms: number) {
    super(`The database did not answer within ${ms} ms`);
  }
}

/**
 * The work's result, or DatabaseDeadlineError after `ms`. A query whose
 * connection dies at the wrong moment can be left unsettled by postgres.js
 * (its socket is gone before the write it scheduled), and a request waiting
 * on it would hang for good; the deadline turns that into a 503.
 */
export async function withDatabaseDeadline<T>(work: Promise<T>, ms = DATABASE_DEADLINE_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      deadlineHook?.();
      reject(new DatabaseDeadlineError(ms));
    }, ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
