/**
 * A redrive drainer that dies for real (SIGKILL) in the middle of its batch:
 * after enqueueing its third redrive, before that transaction commits.
 * Usage: node --import tsx tests/support/crashing-drainer.ts <database url>
 */
import { sql } from 'drizzle-orm';
import { drainRedrives } from '../../packages/engine/src/core';
import { connectDatabase } from '../../packages/engine/src/db/client';

const url = process.argv[2];
if (!url) throw new Error('usage: crashing-drainer.ts <database url>');
const { db } = connectDatabase(url, { maxConnections: 1 });
let enqueued = 0;
await drainRedrives({ db }, async (redrive, tx) => {
  await tx.execute(
    sql`insert into test_queue values (${redrive.outboxKey}, ${JSON.stringify(redrive.payload)}::jsonb)`,
  );
  enqueued += 1;
  if (enqueued === 3) process.kill(process.pid, 'SIGKILL');
});
