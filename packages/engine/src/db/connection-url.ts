import postgres from 'postgres';
import { urlParameter } from './url-hosts';

/**
 * Opens postgres.js on a connection URL as libpq reads it, including a Unix socket named the libpq way:
 * `postgresql://user@localhost:5432/db?host=/var/run/postgresql`. postgres.js reads a socket only from its `path`
 * option and would send `host` to the server as a setting (refused: "unrecognized configuration parameter"), so
 * the socket directory is taken out of the URL and given as the socket's path (`<dir>/.s.PGSQL.<port>`).
 */
export function openPostgres(url: string, options: postgres.Options<Record<string, never>> = {}): postgres.Sql {
  const socket = unixSocketOf(url);
  return socket ? postgres(socket.url, { ...options, path: socket.path }) : postgres(url, options);
}

/** The socket a libpq-style URL names (`?host=/dir`), and the URL without it; undefined for a TCP URL. */
export function unixSocketOf(url: string): { url: string; path: string } | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const directory = parsed.searchParams.get('host');
  if (!directory?.startsWith('/')) return undefined;
  parsed.searchParams.delete('host');
  return { url: parsed.toString(), path: `${directory.replace(/\/+$/, '')}/.s.PGSQL.${parsed.port || '5432'}` };
}

/**
 * Whether postgres.js may use named prepared statements on this URL: yes unless it says `prepare=false`
 * (postgres.js reads that parameter itself). A pooler in transaction mode (PgBouncer before 1.21) hands each
 * transaction to whichever server connection is free, where a statement prepared on another one does not
 * exist: with prepared statements on, postgres.js then waits for good with no error.
 */
export function preparesStatements(url: string): boolean {
  const value = urlParameter(url, 'prepare');
  return value !== 'false' && value !== 'disable';
}
