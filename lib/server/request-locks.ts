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
  /** True when this process now holds the key; false while another request (here or elsewhere) is answering it. */
  tryAcquire(actorId: string, key: string): Promise<boolean>;
  /** Lets the key go; never throws (a lost connection has let it go already). */
  release(actorId: string, key: string): Promise<void>;
  close(): Promise<void>;
}

export function openRequestLocks(url: string): RequestLocks {
  // One connection: session locks live exactly as long as it does. postgres.js
  // reconnects on the next query after it is lost, with none of the old locks.
  const sql = postgres(url, { max: 1, connect_timeout: 5, onnotice: () => {} });
  const heldHere = new Set<string>();
  const name = (actorId: string, key: string) => `${actorId}\u0001${key}`;

  return {
    async tryAcquire(actorId, key) {
      const id = name(actorId, key);
      if (heldHere.has(id)) return false;
      heldHere.add(id);
      try {
        const [row] = await sql<{ locked: boolean }[]>`select pg_try_advisory_lock(${LOCK_NAMESPACE}::int, hashtext(${id})) as locked`;
        if (!row?.locked) heldHere.delete(id);
        return row?.locked === true;
      } catch (error) {
        heldHere.delete(id);
        throw error;
      }
    },
    async release(actorId, key) {
      const id = name(actorId, key);
      if (!heldHere.delete(id)) return;
      try {
        await sql`select pg_advisory_unlock(${LOCK_NAMESPACE}::int, hashtext(${id}))`;
      } catch {
        // The connection is gone, and the session's locks with it.
      }
    },
    close: () => sql.end({ timeout: 5 }),
  };
}
