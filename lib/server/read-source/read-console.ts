import 'server-only';
import { sql } from 'drizzle-orm';
import { cookies } from 'next/headers';
import type { Database } from '@holdfast/engine/db';
import { getEnvironment } from '@holdfast/engine/env';
import { isDatabaseUnavailable } from '../database-outage';
import { getDb } from '../db';
import type { ReadSource } from './notice';
import {
  chooseReadSource,
  getReplicaConnection,
  markReplicaUnreachable,
  replicaUrl,
  sampleReplica,
  withinDeadline,
} from './replica';

/**
 * The console's read models read from the replica when one is configured and
 * current enough; everything else (actions, the reads inside them, sessions,
 * settings) uses getDb(), the primary.
 */

/** The primary's WAL position after this browser's last action; lives as long as the replica may lag. */
export const OWN_WRITE_COOKIE = 'holdfast-own-write';

/** How long one read may take on the replica before it is read from the primary instead. */
const REPLICA_READ_DEADLINE_MS = 5_000;

export interface ConsoleReads {
  db: Database;
  source: ReadSource;
}

/** The database this request's console reads come from, and why. */
export async function getConsoleReads(): Promise<ConsoleReads> {
  if (!replicaUrl()) return { db: getDb(), source: { from: 'primary', reason: 'no_replica' } };
  const [sample, ownWriteLsn] = await Promise.all([sampleReplica(), readOwnWrite()]);
  const source = chooseReadSource({
    sample,
    maxLagSeconds: getEnvironment().HOLDFAST_READ_MAX_LAG_SECONDS,
    ownWriteLsn,
  });
  return { db: source.from === 'replica' ? getReplicaConnection().db : getDb(), source };
}

export interface ReadConsoleOptions<T> {
  /**
   * True when the replica's answer may just be behind: the reads run again
   * on the primary (a detail page's "not found", a search that found nothing).
   */
  orPrimaryWhen?: (value: T) => boolean;
}

/**
 * Runs a page's reads where getConsoleReads says; if the replica fails or
 * hangs mid-read (it went down since its last sample), the same reads run on
 * the primary, so a replica never fails a page (an error the primary gives
 * too still does, as without a replica).
 */
export async function readConsole<T>(
  read: (db: Database) => Promise<T>,
  options: ReadConsoleOptions<T> = {},
): Promise<{ value: T; source: ReadSource }> {
  const { db, source } = await getConsoleReads();
  if (source.from === 'primary') return { value: await read(db), source };
  let value: T;
  try {
    value = await withinDeadline(read(db), REPLICA_READ_DEADLINE_MS);
  } catch (error) {
    // Down or hung: a fresh pool and a new sample next time. Any other error (a standby cancels a query
    // that conflicts with replay, SQLSTATE 40001) is the replica's alone: the primary answers this read.
    if (isDatabaseUnavailable(error)) markReplicaUnreachable();
    else console.warn('A console read failed on the read replica; reading it from the primary instead:', error);
    return { value: await read(getDb()), source: { from: 'primary', reason: 'unreachable' } };
  }
  if (options.orPrimaryWhen?.(value))
    return { value: await read(getDb()), source: { from: 'primary', reason: 'not_on_replica' } };
  return { value, source };
}

/**
 * After an action: this browser reads from the primary until the replica has
 * replayed past the action's write (or the cookie expires after the replica's
 * lag limit), so it never sees the state from before its own change. The
 * primary's current WAL position is at or past the action's commit.
 */
export async function rememberOwnWrite(): Promise<void> {
  if (!replicaUrl()) return;
  let lsn = 'unknown';
  try {
    const [row] = await getDb().execute<{ lsn: string }>(sql`select pg_current_wal_lsn()::text as lsn`);
    lsn = row?.lsn ?? lsn;
  } catch {
    // An unknown position (not an LSN) still sends this browser to the primary until the cookie expires.
  }
  try {
    (await cookies()).set(OWN_WRITE_COOKIE, lsn, {
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      maxAge: getEnvironment().HOLDFAST_READ_MAX_LAG_SECONDS,
    });
  } catch {
    // Outside a request (a script or test calling an action): no browser to remember it for.
  }
}

async function readOwnWrite(): Promise<string | undefined> {
  try {
    return (await cookies()).get(OWN_WRITE_COOKIE)?.value;
  } catch {
    // Outside a request (a test calling a handler directly): no browser, no write of its own.
    return undefined;
  }
}
