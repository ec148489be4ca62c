import { sql } from 'drizzle-orm';
import type { Transaction } from '../db/client';

/**
 * The rollup pass's horizon: a transaction id below which every transaction
 * that may have written this database's attempts has ended, so that rows with
 * `changed_xid` below it are all visible to the pass and the next pass starts
 * from it (roll-up.ts, `processed_xid`).
 *
 * The snapshot's xmin would do, but it is the oldest transaction running in
 * the whole cluster: on a PostgreSQL shared with other databases (other
 * applications, or test files side by side), one long transaction there would
 * hold back every late row here until it ended. Only this database's
 * transactions can write its attempts, so the horizon is the oldest of those
 * still running at `snapshot`, else the snapshot's xmax.
 *
 * Who is running is read after `snapshot` was taken (the caller's earlier
 * statement), from the locks every transaction holds on its own id from the
 * moment it gets one until after its commit is visible. A transaction of this
 * database running at the snapshot is therefore either still found here, or
 * has committed since, and the pass's later statements (read committed, a
 * snapshot each) see its rows. Prepared transactions hold their locks with no
 * backend, and are read from pg_prepared_xacts. Autovacuum workers are left
 * out: an automatic ANALYZE takes a transaction id to update the statistics
 * catalog for as long as it samples a table, and never writes attempts.
 */
export async function readWriteHorizon(tx: Transaction, snapshot: string): Promise<string> {
  const { xmax } = parseSnapshot(snapshot);
  const rows = await tx.execute<{ xid: string; reference: string }>(sql`
    with ours as (
      select l.transactionid as xid from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where l.locktype = 'transactionid' and l.granted and l.pid <> pg_backend_pid()
        and a.datname = current_database() and a.backend_type <> 'autovacuum worker'
      union all
      select transaction from pg_prepared_xacts where database = current_database()
    )
    select xid::text, pg_snapshot_xmax(pg_current_snapshot())::text as reference from ours`);
  let horizon = xmax;
  for (const row of rows) {
    const running = fullTransactionId(BigInt(row.xid), BigInt(row.reference));
    if (running < horizon) horizon = running;
  }
  return horizon.toString();
}

/** `xmin:xmax:xip,...` as pg_snapshot's text form gives it. */
export function parseSnapshot(snapshot: string): { xmin: bigint; xmax: bigint } {
  const [xmin, xmax] = snapshot.split(':');
  if (xmin === undefined || xmax === undefined) throw new Error(`not a pg_snapshot: ${snapshot}`);
  return { xmin: BigInt(xmin), xmax: BigInt(xmax) };
}

/**
 * A 32-bit transaction id as the 64-bit one it stands for: the one nearest
 * `reference` (a snapshot's xmax, read in the same statement) with these low
 * 32 bits. A running transaction is far less than 2^31 ids from it (behind, or
 * just ahead when it began while the statement ran), so this is exact.
 */
export function fullTransactionId(xid: bigint, reference: bigint): bigint {
  const wrap = 0x100000000n;
  const behind = ((((reference & 0xffffffffn) - xid) % wrap) + wrap) % wrap;
  return behind <= wrap / 2n ? reference - behind : reference + (wrap - behind);
}
