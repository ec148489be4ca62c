import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { connectDatabase, type Executor } from '../../../packages/engine/src/db/client';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();

describe('connectDatabase', () => {
  it('makes parallel plans cost more to start, so small reads stay serial and big scans still go parallel', async () => {
    const [setting] = await database.sql<{ parallel_setup_cost: string }[]>`show parallel_setup_cost`;
    expect(Number(setting!.parallel_setup_cost)).toBe(10_000);
    // A scan big enough still gets workers: the setting only raises the bar.
    await database.sql`create unlogged table big_scan as select g from generate_series(1, 3000000) as g`;
    await database.sql`analyze big_scan`;
    const plan = await database.sql<{ 'QUERY PLAN': string }[]>`explain select count(*) from big_scan where g % 7 = 0`;
    expect(plan.map((row) => row['QUERY PLAN']).join('\n')).toContain('Gather');
  });

  it("prepares drizzle's statements on the pool, in a transaction and in a savepoint, once per text and connection", async () => {
    // One connection, so every statement below and the look at what is prepared share a session.
    const pool = connectDatabase(database.url, { maxConnections: 1 });
    const preparedCount = async (executor: Executor, marker: string) => {
      const rows = await executor.execute<{ n: number }>(
        sql`select count(*)::int as n from pg_prepared_statements where statement like ${`%${marker}%`} and not from_sql`,
      );
      return rows[0]!.n;
    };
    const runTwice = async (executor: Executor, marker: string) => {
      for (const value of [1, 2]) await executor.execute(sql`select ${value}::int as ${sql.identifier(marker)}`);
      return preparedCount(executor, marker);
    };
    try {
      const onPool = `pool_${randomUUID().slice(0, 8)}`;
      const inTransaction = `tx_${randomUUID().slice(0, 8)}`;
      const inSavepoint = `sp_${randomUUID().slice(0, 8)}`;
      expect(await runTwice(pool.db, onPool)).toBe(1);
      await pool.db.transaction(async (tx) => {
        expect(await runTwice(tx, inTransaction)).toBe(1);
        await tx.transaction(async (savepoint) => {
          expect(await runTwice(savepoint, inSavepoint)).toBe(1);
        });
      });
    } finally {
      await pool.close();
    }
  });
});
