import { describe, expect, it } from 'vitest';
import { claimKey, completeKey, hashContent } from '../../../packages/engine/src/core';
import { migrateDatabase } from '../../../packages/engine/src/db/migrate';
import { migrationsUpTo } from '../../support/migrations-up-to';
import { useTestDatabase } from '../../support/test-database';

/**
 * Migration 0024 on a database as the previous release left it: tasks take the
 * queue their step keys carry (else their agent's), raw keys move under the
 * raw: prefix with their holds and keep answering, step keys stay as they are.
 */
const database = useTestDatabase({ migrated: false });

const oldKey = (key: string, extra: string) => `
  insert into idempotency_keys (key, scope, request_hash, status, fencing_token, holder_claim, downstream_idempotent,
    task_id, step, result, expires_at${extra ? ', agent, queue' : ''})
  values ('${key}', 'step', '${hashContent({ cents: 100 })}', 'completed', 1, 'claim-1', true,
    'order-7', 'charge', '{"charged": "first"}', now() + interval '1 day'${extra})`;

describe('migration 0024: the task keeps its agent and queue; raw keys get their own names', () => {
  it('backfills queues, renames raw keys and their holds, and leaves step keys alone', async () => {
    await migrateDatabase(database.url, await migrationsUpTo('0023'));
    const sql = database.sql;
    await sql.unsafe(`
      insert into task_budgets (task_id, agent, owner, retry_allowance, spend_ceiling_micros, time_allowance_ms, deadline)
      values ('order-7', 'payments', 'team:payments', 2, 1000000, 3600000, now() + interval '1 hour'),
             ('order-8', 'payments', 'team:payments', 2, 1000000, 3600000, now() + interval '1 hour')`);
    await sql.unsafe(oldKey('order-7/charge', ", 'payments', 'card-queue'"));
    await sql.unsafe(oldKey('order-7/refund-by-hand', ''));
    await sql.unsafe(oldKey('raw:already-named', ''));
    await sql.unsafe(`
      insert into holds (item_type, item_id, reason, detail, owner, opened_by)
      values ('key', 'order-7/refund-by-hand', 'uncertain_outcome', 'check the refund', 'team:payments', 'agent:worker')`);

    await migrateDatabase(database.url);

    const tasks = await sql<{ task_id: string; queue: string }[]>`
      select task_id, queue from task_budgets order by task_id`;
    expect(tasks).toEqual([
      { task_id: 'order-7', queue: 'card-queue' },
      { task_id: 'order-8', queue: 'payments' },
    ]);
    const keys = await sql<{ key: string }[]>`select key from idempotency_keys order by key`;
    expect(keys.map((row) => row.key)).toEqual(['order-7/charge', 'raw:already-named', 'raw:order-7/refund-by-hand']);
    const [hold] = await sql<{ item_id: string }[]>`select item_id from holds`;
    expect(hold?.item_id).toBe('raw:order-7/refund-by-hand');

    // The raw key still answers by the name it was claimed with: a redelivery replays, and runs nothing.
    const again = await claimKey(
      { db: database.db },
      { key: 'order-7/refund-by-hand', requestHash: hashContent({ cents: 100 }) },
    );
    expect(again).toMatchObject({ outcome: 'replay', result: { charged: 'first' } });
    const named = await claimKey(
      { db: database.db },
      { key: 'already-named', requestHash: hashContent({ cents: 100 }) },
    );
    expect(named).toMatchObject({ outcome: 'replay' });
    const fresh = await claimKey({ db: database.db }, { key: 'order-9/charge', requestHash: 'h' });
    if (fresh.outcome !== 'acquired') throw new Error('expected a new raw key');
    await completeKey({ db: database.db }, { key: 'order-9/charge', fencingToken: fresh.fencingToken, result: null });
    const [stored] = await sql<{ key: string; status: string }[]>`
      select key, status from idempotency_keys where key like '%order-9%'`;
    expect(stored).toEqual({ key: 'raw:order-9/charge', status: 'completed' });

    // An instance of the previous version creates tasks without a queue during a rolling upgrade.
    await sql`
      insert into task_budgets (task_id, agent, owner, retry_allowance, spend_ceiling_micros, time_allowance_ms, deadline)
      values ('order-10', 'mail', 'team:mail', 2, 1000000, 3600000, now() + interval '1 hour')`;
    const [late] = await sql<{ queue: string }[]>`select queue from task_budgets where task_id = 'order-10'`;
    expect(late?.queue).toBe('mail');
  });
});
