import 'server-only';
import type postgres from 'postgres';
import { openPostgres } from '../db/connection-url';

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

export function openRequestLocks(url: string): RequestLocks {
  // One connection: session locks live exactly as long as it does. postgres.js
  // reconnects on the next query after it is lost, with none of the old locks.
  const connect = () => openPostgres(url, { max: 1, connect_timeout: 5, onnotice: () => {} });
  let sql = connect();
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
        const [row] = await onLocksConnection(
          (client) =>
            client<
              { locked: boolean }[]
            >`select pg_try_advisory_lock(${lockNamespace}::int, hashtext(${id})) as locked`,
        );
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
          await onLocksConnection(
            (client) => client`select pg_advisory_unlock(${lockNamespace}::int, hashtext(${id}))`,
          );
        } catch {
          // The connection is gone (or was replaced), and the session's locks with it.
        }
      };
    },
    close: () => sql.end({ timeout: 5 }),
  };
}
