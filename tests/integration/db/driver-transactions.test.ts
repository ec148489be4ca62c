import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();

// The same texts in the warm-up and the test, so the test's statements are already prepared
// (a statement described first takes its connection out of the pipeline, hiding the boundary).
const sleep = (sql: postgres.Sql, seconds: number) => sql`select pg_sleep(${seconds})`;
const queuedQuery = (sql: postgres.Sql, value: number) => sql`select ${value}::int as n`;

/**
 * postgres.js 3.4.9 reserves a transaction's connection only when the BEGIN it
 * wrote leaves room in the connection's pipeline; a BEGIN pipelined as the
 * last query a busy connection takes ran unreserved (UNSAFE_TRANSACTION, or
 * other queries inside the transaction). patches/postgres+3.4.9.patch fixes
 * the driver; these tests put a BEGIN exactly on that boundary.
 */
describe('transactions on a busy pool', () => {
  it('reserves the connection for a BEGIN that fills a busy connection’s pipeline', async () => {
    // Two connections, each may carry two queries at once: one running, one queued behind it.
    // max_pipeline is a driver option its types do not list (a variable, not a literal, passes it).
    const options = { max: 2, max_pipeline: 2, onnotice: () => {} };
    const sql = postgres(database.url, options);
    try {
      // Open both connections, and prepare the statements used below on each.
      for (let round = 0; round < 2; round++) {
        await Promise.all([sleep(sql, 0.01), sleep(sql, 0.01), queuedQuery(sql, 1), queuedQuery(sql, 2)]);
      }
      // Both connections busy for a moment, each with one query queued behind its sleep...
      const sleeping = [sleep(sql, 0.2).execute(), sleep(sql, 0.2).execute()];
      const queued = [queuedQuery(sql, 1).execute(), queuedQuery(sql, 2).execute()];
      // ...so each BEGIN is the query that fills a connection's pipeline.
      const transactions = [0, 1].map((index) =>
        sql.begin(async (tx) => {
          const [inside] = await tx<{ open: boolean }[]>`select now() = statement_timestamp() as open`;
          return { index, open: inside!.open };
        }),
      );
      const settled = await Promise.allSettled([...sleeping, ...queued, ...transactions]);
      const failures = settled.filter((result) => result.status === 'rejected').map((result) => String(result.reason));
      expect(failures).toEqual([]);
      // A transaction's statements see its start time, not their own: they ran inside BEGIN.
      const results = await Promise.all(transactions);
      expect(results.map((result) => result.open)).toEqual([false, false]);
      // Nothing is left open on the server.
      const [idle] = await sql<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity
        where datname = current_database() and state like 'idle in transaction%'`;
      expect(idle!.n).toBe(0);
    } finally {
      await sql.end({ timeout: 5 });
    }
  });
});
