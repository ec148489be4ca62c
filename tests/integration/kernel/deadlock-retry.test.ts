import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { retryOnDeadlock } from '../../../packages/engine/src/core/kernel/deadlock-retry';
import { connectDatabase } from '../../../packages/engine/src/db/client';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();

describe('retryOnDeadlock', () => {
  it('runs a transaction again after PostgreSQL aborted it to break a deadlock, and never inside a caller transaction', async () => {
    await database.db.execute(sql`create table lock_order (id text primary key, touched int not null default 0)`);
    await database.db.execute(sql`insert into lock_order (id) values ('a'), ('b')`);
    const pool = connectDatabase(database.url, { maxConnections: 4 });
    try {
      let firstRowsLocked = 0;
      let bothLocked: () => void = () => {};
      const bothHoldTheirFirstRow = new Promise<void>((resolve) => (bothLocked = resolve));
      const lockedOne = () => {
        firstRowsLocked += 1;
        if (firstRowsLocked === 2) bothLocked();
      };

      const otherIsWaiting = async () => {
        for (let waited = 0; waited < 30_000; waited += 10) {
          const [row] = await database.sql<{ waiting: number }[]>`
            select count(*)::int as waiting from pg_locks l join pg_stat_activity a on a.pid = l.pid
            where l.locktype = 'transactionid' and not l.granted and a.datname = current_database()`;
          if (row!.waiting > 0) return;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        throw new Error('the other transaction never waited for row a');
      };

      let otherCommitted: () => void = () => {};
      const otherHasCommitted = new Promise<void>((resolve) => (otherCommitted = resolve));

      let tries = 0;
      // a then b; this side detects the deadlock first (short deadlock_timeout), so it is the one aborted.
      const retried = retryOnDeadlock(pool.db, () =>
        pool.db.transaction(async (tx) => {
          tries += 1;
          // The retry starts the moment the abort lands, while the other side is still being woken to take row a.
          // It waits for the other's commit before it touches a row: had it taken row a first, the other would wait
          // for it in PostgreSQL while it waited for the other here, a hang PostgreSQL cannot see (it did, once, on
          // a loaded machine). The test is of the retry, not of that race.
          if (tries > 1) await otherHasCommitted;
          await tx.execute(sql`set local deadlock_timeout = '20ms'`);
          await tx.execute(sql`update lock_order set touched = touched + 1 where id = 'a'`);
          if (tries === 1) {
            lockedOne();
            await bothHoldTheirFirstRow;
            // PostgreSQL looks for a deadlock once, deadlock_timeout after a wait begins: this side's wait must
            // begin after the other's, or on a loaded machine it finds no cycle yet and the other side is aborted.
            await otherIsWaiting();
          }
          await tx.execute(sql`update lock_order set touched = touched + 1 where id = 'b'`);
        }),
      );
      // b then a, with a long deadlock_timeout: it waits and wins.
      const other = pool.db
        .transaction(async (tx) => {
          await tx.execute(sql`set local deadlock_timeout = '5s'`);
          await tx.execute(sql`update lock_order set touched = touched + 1 where id = 'b'`);
          lockedOne();
          await bothHoldTheirFirstRow;
          await tx.execute(sql`update lock_order set touched = touched + 1 where id = 'a'`);
        })
        .then(otherCommitted);
      await Promise.all([retried, other]);
      expect(tries).toBe(2);
      const rows = await database.db.execute<{ id: string; touched: number }>(
        sql`select id, touched from lock_order order by id`,
      );
      // Each row touched once by each transaction: the aborted try left nothing behind.
      expect(rows.map((row) => [row.id, row.touched])).toEqual([
        ['a', 2],
        ['b', 2],
      ]);

      // Inside a caller's transaction an abort is the caller's: no second try.
      let innerTries = 0;
      await expect(
        pool.db.transaction((tx) =>
          retryOnDeadlock(tx, async () => {
            innerTries += 1;
            throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
          }),
        ),
      ).rejects.toMatchObject({ code: '40P01' });
      expect(innerTries).toBe(1);
    } finally {
      await pool.close();
    }
  });
});
