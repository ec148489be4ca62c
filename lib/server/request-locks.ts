import 'server-only';
import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import { openPostgres } from '@holdfast/engine/db';

/**
 * Who is answering an Idempotency-Key right now. The key's row in
 * api_requests says "in flight" (status null); these locks say whether the
 * request that wrote it is still alive. Each in-flight request holds a
 * session advisory lock on one dedicated connection of this process, so the
 * lock dies with the request's process and with PostgreSQL itself: after a
 * crash or an outage a null-status row with a free lock is an orphan that the
 * next request with the key takes over at once, instead of a stall.
 *
 * Advisory locks are re-entrant within a session, so requests of this same
 * process are told apart in memory first.
 *
 * A pooler in transaction mode would break this silently: it hands each
 * statement to any server connection, so a lock would be taken on one
 * session and looked for on another, and granted again to whichever client
 * lands on the first. The connection therefore marks its session with a
 * random value when it opens, and every lock statement acts only on a session
 * carrying that mark (see SESSION_MARK). The URL is DATABASE_SESSION_URL when
 * DATABASE_URL goes through such a pooler (docs/operations/poolers.md).
 *
 * The audit CSV export holds one of these locks too, per person, while its
 * stream runs (its own namespace): one export per person at a time, on every
 * instance, and a crashed instance's exports are over with its connection.
 */

/**
 * The first half of the two-integer advisory lock key, per kind of lock held on
 * this connection: in-flight Idempotency-Keys, and audit exports in progress
 * (one per person at a time, held while the CSV streams).
 */
const LOCK_NAMESPACES = { 'idempotency-key': 0x4f1d, 'audit-export': 0x4f1e } as const;
export type LockNamespace = keyof typeof LOCK_NAMESPACES;

export interface RequestLocks {
  /**
   * The key's release when this request now holds it; undefined while another
   * request (here or elsewhere) is answering it. The release never throws (a
   * lost connection has let the lock go already) and lets go only of this
   * hold, not of a later request's hold of the same key.
   */
  tryAcquire(actorId: string, key: string, namespace?: LockNamespace): Promise<(() => Promise<void>) | undefined>;
  close(): Promise<void>;
}

/** How long one lock statement may take before its connection is presumed wedged. */
const LOCK_STATEMENT_TIMEOUT_MS = 3_000;

/** The session setting that carries this connection's mark: a lock statement on a session without it does nothing. */
const SESSION_MARK = 'holdfast.request_locks_session';

/** The lock statements ran on a session other than the one this connection marked: a pooler shares it. */
export class LockSessionNotKeptError extends Error {
  // A connection code, so that the request is answered 503 (retry later) and never 500.
  readonly code = 'CONNECTION_DESTROYED';
  constructor() {
    super(
      'The Idempotency-Key locks connection did not keep its session (a pooler in transaction mode?): ' +
        'point DATABASE_SESSION_URL at PostgreSQL directly or through a session-mode pool',
    );
  }
}

export function openRequestLocks(url: string): RequestLocks {
  // One connection: session locks live exactly as long as it does. postgres.js
  // reconnects on the next query after it is lost, with none of the old locks
  // and without the mark, which is then set again (a new one) first.
  let marking: Promise<string> | undefined;
  const connect = (): postgres.Sql => {
    const client = openPostgres(url, {
      max: 1,
      connect_timeout: 5,
      onnotice: () => {},
      onclose: () => {
        // Only the current client's session: a replaced client closing later must not make the current
        // one forget the mark its session carries (it would then never match it again).
        if (sql !== client) return;
        marking = undefined;
        // Its session's locks ended with it (an outage, a restart of PostgreSQL): this process's holds are void
        // too, so a request retried after recovery takes its orphaned key over at once instead of being told,
        // by a hold of a request the outage already failed, that the key is still in progress.
        heldHere.clear();
      },
    });
    return client;
  };
  let sql = connect();
  /**
   * This connection's mark, set on its session first if it has none yet; requests arriving together share
   * the one marking. A session that already carries another mark belongs to another client (a pooler handed
   * it over): it is never marked again, and the lock statement after this one then refuses it, so neither
   * client is granted the other's locks.
   */
  const markedSession = (client: postgres.Sql): Promise<string> => {
    if (marking === undefined) {
      const fresh = randomUUID();
      const started = client`
        select set_config(${SESSION_MARK}, ${fresh}, false)
        where coalesce(current_setting(${SESSION_MARK}, true), '') = ''`.then(() => fresh);
      marking = started;
      // A failed marking is tried again by the next request.
      started.catch(() => {
        if (marking === started) marking = undefined;
      });
    }
    return marking;
  };
  let saidSessionNotKept = false;
  // Which hold of each key is this process's current one (a token per acquisition).
  const heldHere = new Map<string, symbol>();

  /**
   * A statement on the locks' connection, given up after a few seconds. A
   * connection cut at the wrong moment can leave postgres.js with a query
   * that never settles, and with one connection every later lock would queue
   * behind it for good: the wedged client is destroyed instead (its session,
   * and every lock it held, end with it) and a fresh one takes its place.
   */
  async function onLocksConnection<T>(statement: (client: postgres.Sql) => Promise<T>): Promise<T> {
    const client = sql;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(Object.assign(new Error('the request locks connection did not answer'), { code: 'CONNECT_TIMEOUT' })),
        LOCK_STATEMENT_TIMEOUT_MS,
      );
    });
    try {
      return await Promise.race([statement(client), timedOut]);
    } catch (error) {
      if (client === sql && (error as { code?: string }).code === 'CONNECT_TIMEOUT') {
        marking = undefined;
        sql = connect();
        heldHere.clear();
        void client.end({ timeout: 0 }).catch(() => {});
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    async tryAcquire(actorId, key, namespace = 'idempotency-key') {
      const id = `${actorId}\u0001${key}`;
      const lockNamespace = LOCK_NAMESPACES[namespace];
      const heldId = `${lockNamespace}\u0001${id}`;
      if (heldHere.has(heldId)) return undefined;
      const hold = Symbol(id);
      heldHere.set(heldId, hold);
      const forget = () => heldHere.get(heldId) === hold && heldHere.delete(heldId);
      try {
        const [row] = await onLocksConnection(async (client) => {
          const sessionMark = await markedSession(client);
          // null when the session lacks the mark: the lock is then neither taken nor looked at.
          return client<{ locked: boolean | null }[]>`
            select case when current_setting(${SESSION_MARK}, true) = ${sessionMark}
              then pg_try_advisory_lock(${lockNamespace}::int, hashtext(${id})) end as locked`;
        });
        if (row?.locked === null) {
          const refusal = new LockSessionNotKeptError();
          if (!saidSessionNotKept) console.error(`[holdfast] ${refusal.message}`);
          saidSessionNotKept = true;
          throw refusal;
        }
        if (row?.locked !== true) {
          forget();
          return undefined;
        }
      } catch (error) {
        forget();
        throw error;
      }
      return async () => {
        if (!forget()) return;
        try {
          await onLocksConnection(async (client) => {
            // Unlocks only on this connection's own session (after a reconnect there is no lock to let go of).
            const sessionMark = (await marking?.catch(() => undefined)) ?? '';
            return client`
              select pg_advisory_unlock(${lockNamespace}::int, hashtext(${id}))
              where current_setting(${SESSION_MARK}, true) = ${sessionMark}`;
          });
        } catch {
          // The connection is gone (or was replaced), and the session's locks with it.
        }
      };
    },
    close: () => sql.end({ timeout: 5 }),
  };
}
