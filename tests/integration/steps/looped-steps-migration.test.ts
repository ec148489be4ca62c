import { describe, expect, it } from 'vitest';
import { migrateDatabase } from '../../../packages/engine/src/db/migrate';
import { migrationsUpTo } from '../../support/migrations-up-to';
import { useTestDatabase } from '../../support/test-database';

/**
 * Migration 0031 on a database as the previous release left it: attempts of a
 * looped step logged before (only one pass of each attempt number could be)
 * are given the pass their key names, their identities with them; attempts
 * of other steps, and keys that only look like a pass, stay at 0.
 */
const database = useTestDatabase({ migrated: false });

describe('migration 0031: the iteration joins the attempt identity', () => {
  it('gives rows logged before the pass their key names, and then takes a second pass’s attempt 1', async () => {
    await migrateDatabase(database.url, await migrationsUpTo('0030'));
    const sql = database.sql;
    const started = '2026-12-01T10:00:00Z';
    const logged = [
      // task, step, attempt, key
      ['order-7', 'poll', 1, 'order-7/poll#3'],
      ['order-7', 'poll', 2, 'order-7/poll#3'],
      ['order-7', 'charge', 1, 'order-7/charge'],
      // A task id with a # in it: its key names no pass.
      ['order#8', 'poll', 1, 'order#8/poll'],
      // A raw key someone named like a pass, on another step: not this step's pass.
      ['order-9', 'poll', 1, 'raw:order-9/other#2'],
    ] as const;
    for (const [taskId, step, attemptNumber, key] of logged) {
      await sql`
        insert into attempt_identities (task_id, step, attempt_number, started_at)
        values (${taskId}, ${step}, ${attemptNumber}, ${started})`;
      await sql`
        insert into attempts (task_id, agent, step, attempt_number, started_at, finished_at, latency_ms, outcome,
          idempotency_key)
        values (${taskId}, 'poller', ${step}, ${attemptNumber}, ${started}, ${started}, 0, 'succeeded', ${key})`;
    }

    await migrateDatabase(database.url);

    const attempts = await sql<{ task_id: string; step: string; iteration: number; attempt_number: number }[]>`
      select task_id, step, iteration, attempt_number from attempts order by task_id, step, attempt_number`;
    expect(attempts).toEqual([
      { task_id: 'order#8', step: 'poll', iteration: 0, attempt_number: 1 },
      { task_id: 'order-7', step: 'charge', iteration: 0, attempt_number: 1 },
      { task_id: 'order-7', step: 'poll', iteration: 3, attempt_number: 1 },
      { task_id: 'order-7', step: 'poll', iteration: 3, attempt_number: 2 },
      { task_id: 'order-9', step: 'poll', iteration: 0, attempt_number: 1 },
    ]);
    const identities = await sql<{ task_id: string; iteration: number; attempt_number: number }[]>`
      select task_id, iteration, attempt_number from attempt_identities where step = 'poll' order by task_id, attempt_number`;
    expect(identities).toEqual([
      { task_id: 'order#8', iteration: 0, attempt_number: 1 },
      { task_id: 'order-7', iteration: 3, attempt_number: 1 },
      { task_id: 'order-7', iteration: 3, attempt_number: 2 },
      { task_id: 'order-9', iteration: 0, attempt_number: 1 },
    ]);

    // Another pass's attempt 1 of the same step now has an identity of its own.
    const taken = await sql`
      insert into attempt_identities (task_id, step, iteration, attempt_number, started_at)
      values ('order-7', 'poll', 4, 1, ${started}) on conflict do nothing returning 1`;
    expect(taken).toHaveLength(1);
  });
});
