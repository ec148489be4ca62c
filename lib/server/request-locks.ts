import 'server-only';
import postgres from 'postgres';

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
 */

// The first half of the two-integer advisory lock key: a namespace of Idempotency-Keys.
const LOCK_NAMESPACE = 0x4f1d;

export interface RequestLocks {
  /**
   * The key's release when this request now holds it; undefined while another
   * request (here or elsewhere) is answering it. The release never throws (a
   * lost connection has let the lock go already) and lets go only of this
   * hold, not of a later request's hold of the same key.
   */
  tryAcquire(actorId: string, key: string): Promise<(() => Promise<void>) | undefined>;
  close(): Promise<void>;
}

export function openRequestLocks(url: string): RequestLocks {
  // One connection: session locks live exactly as long as it does. postgres.js
  // reconnects on the next query after it is lost, with none of the old locks.
  const sql = postgres(url, { max: 1, connect_timeout: 5, onnotice: () => {} });
  // Which hold of each key is this process's current one (a token per acquisition).
  const heldHere = new Map<string, symbol>();

  return {
    async tryAcquire(actorId, key) {
      const id = `${actorId}\u0001${key}`;
      if (heldHere.has(id)) return undefined;
      const hold = Symbol(id);
      heldHere.set(id, hold);
      const forget = () => heldHere.get(id) === hold && heldHere.delete(id);
      try {
        const [row] = await sql<{ locked: boolean }[]>`select pg_try_advisory_lock(${LOCK_NAMESPACE}::int, hashtext(${id})) as locked`;
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
          await sql`select pg_advisory_unlock(${LOCK_NAMESPACE}::int, hashtext(${id}))`;
        } catch {
          // The connection is gone, and the session's locks with it.
        }
      };
    },
    close: () => sql.end({ timeout: 5 }),
  };
}
