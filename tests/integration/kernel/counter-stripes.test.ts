import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { connectDatabase, type DatabaseConnection } from '../../../packages/engine/src/db/client';
import { COUNTER_STRIPES } from '../../../packages/engine/src/core/kernel/counter-stripe';
import { countPoolUsage } from '../../../packages/engine/src/core/retry-pools/pool-usage';
import { useTestDatabase } from '../../support/test-database';

/**
 * Every begin adds to its step's retry-pool usage slice, in the begin's transaction: one row per slice would make
 * concurrent begins of a step queue on its lock until each other's commits. Counts go to the writing connection's
 * stripe of the slice (packages/engine/src/core/kernel/counter-stripe.ts), and readers sum the stripes.
 */
const database = useTestDatabase();
const at = new Date('2026-12-03T12:00:02.000Z');

/** A connection of one session, and the stripe it writes to. */
async function session(): Promise<{ connection: DatabaseConnection; stripe: number }> {
  const connection = connectDatabase(database.url, { maxConnections: 1 });
  const [row] = await connection.sql<{ pid: number }[]>`select pg_backend_pid() as pid`;
  return { connection, stripe: row!.pid % COUNTER_STRIPES };
}

describe('a counter striped by connection', () => {
  it("is not held up by another connection's uncommitted count of the same slice, and sums both", async () => {
    const agent = `striped-${randomUUID().slice(0, 8)}`;
    const opened: DatabaseConnection[] = [];
    try {
      const holder = await session();
      opened.push(holder.connection);
      // Another session on a stripe of its own (backend ids may fold onto the same stripe: open until one does not).
      let other = await session();
      opened.push(other.connection);
      while (other.stripe === holder.stripe) {
        other = await session();
        opened.push(other.connection);
      }
      let releaseHolder: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        releaseHolder = resolve;
      });
      let holderCounted: () => void = () => {};
      const counted = new Promise<void>((resolve) => {
        holderCounted = resolve;
      });
      const holding = holder.connection.db.transaction(async (tx) => {
        await countPoolUsage(tx, agent, 'send', at, 'first_attempts');
        holderCounted();
        await held;
      });
      await counted;
      // With one row per slice this would wait for the holder's commit, past the statement timeout.
      await other.connection.sql`set statement_timeout = 2000`;
      await countPoolUsage(other.connection.db, agent, 'send', at, 'first_attempts');
      releaseHolder();
      await holding;

      const [sums] = await database.db.execute<{ rows: number; first_attempts: number }>(sql`
        select count(*)::int as rows, sum(first_attempts)::int as first_attempts
        from retry_pool_usage where agent = ${agent}`);
      expect(sums).toEqual({ rows: 2, first_attempts: 2 });
    } finally {
      for (const connection of opened) await connection.close();
    }
  });
});
