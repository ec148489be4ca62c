/**
 * How the server writes an unexpected error to its log: bounded. A failed
 * query's error (drizzle's "Failed query: ... params: ...") carries every
 * parameter of the statement, an agent's whole payload among them; logged as
 * is, one request could put 64 KiB of its own text into the log, and a
 * secret with it. So the log gets each message's first characters, the
 * database's code and the stack's frames, never the parameters.
 */

/** The most of one message the log keeps. */
export const LOGGED_MESSAGE_CHARS = 300;
const LOGGED_FRAMES = 8;

function bounded(text: string): string {
  return text.length <= LOGGED_MESSAGE_CHARS
    ? text
    : `${text.slice(0, LOGGED_MESSAGE_CHARS)}… (${text.length - LOGGED_MESSAGE_CHARS} more characters not logged)`;
}

/** One line per error in the chain (error, its cause, ...): name, database code and the message's start. */
export function describeForLog(error: unknown): string {
  const lines: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
    if (current instanceof Error) {
      const code = (current as { code?: unknown }).code;
      lines.push(
        `${depth > 0 ? 'caused by ' : ''}${current.name}${typeof code === 'string' ? ` [${code}]` : ''}: ${bounded(current.message)}`,
      );
      current = current.cause;
    } else {
      lines.push(`${depth > 0 ? 'caused by ' : ''}${bounded(String(current))}`);
      break;
    }
  }
  return lines.join('\n');
}

/** Logs an unexpected error: describeForLog, then the top of its stack (the frames only: the stack repeats the message). */
export function logUnexpectedError(error: unknown): void {
  const frames =
    error instanceof Error && error.stack
      ? error.stack
          .split('\n')
          .filter((line) => line.trimStart().startsWith('at '))
          .slice(0, LOGGED_FRAMES)
      : [];
  console.error([describeForLog(error), ...frames].join('\n'));
}
