/**
 * The driver's error code (a SQLSTATE such as 23505, or a socket code such as
 * ECONNREFUSED), looking through drizzle's wrapper errors to their cause.
 */
export function databaseErrorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
