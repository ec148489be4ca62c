import { describe, expect, it } from 'vitest';
import { migrateDatabase } from '../../../packages/engine/src/db/migrate';
import { migrationsUpTo } from '../../support/migrations-up-to';
import { useTestDatabase } from '../../support/test-database';

/**
 * Migration 0045 on a database as the previous release left it: the shared downstream:<name> breakers, their slice
 * counts and events are cleared (they mix every agent's outcomes and carry no agent to split them by); step
 * breakers stay as they are; a shared row an instance of the previous version inserts during a rolling upgrade is
 * skipped, and its statement still succeeds.
 */
const database = useTestDatabase({ migrated: false });

const at = '2026-12-05T09:00:00Z';

describe('migration 0045: downstream breakers become per agent', () => {
  it('clears the shared downstream breakers with their counts, keeps step breakers, and skips a late shared one', async () => {
    await migrateDatabase(database.url, await migrationsUpTo('0044'));
    const sql = database.sql;
    await sql`
      insert into circuit_breakers (target, scope, agent, step, downstream, state, opened_at, probe_at, failure_share,
        volume, changed_at)
      values ('downstream:stripe', 'downstream', null, null, 'stripe', 'open', ${at}, ${at}::timestamptz + interval '30 seconds', 1, 20, ${at}),
        ('step:payments/charge_card', 'step', 'payments', 'charge_card', null, 'open', ${at},
          ${at}::timestamptz + interval '30 seconds', 0.9, 30, ${at})`;
    await sql`
      insert into breaker_slices (target, slice_start, attempts, failures)
      values ('downstream:stripe', ${at}, 20, 20), ('step:payments/charge_card', ${at}, 30, 27)`;
    await sql`
      insert into breaker_events (target, event, at, failure_share, volume)
      values ('downstream:stripe', 'opened', ${at}, 1, 20), ('step:payments/charge_card', 'opened', ${at}, 0.9, 30)`;

    await migrateDatabase(database.url);

    const breakers = await sql<{ target: string; state: string }[]>`
      select target, state from circuit_breakers order by target`;
    expect(breakers).toEqual([{ target: 'step:payments/charge_card', state: 'open' }]);
    const slices = await sql<{ target: string; failures: number }[]>`select target, failures from breaker_slices`;
    expect(slices).toEqual([{ target: 'step:payments/charge_card', failures: 27 }]);
    const events = await sql<{ target: string }[]>`select target from breaker_events`;
    expect(events).toEqual([{ target: 'step:payments/charge_card' }]);

    // The previous version's trip of a shared breaker (its openWhenTripped's insert) writes nothing, and no error.
    const late = await sql`
      insert into circuit_breakers (target, scope, agent, step, downstream, state, opened_at, probe_at, probes_granted,
        failure_share, volume, changed_at)
      values ('downstream:stripe', 'downstream', null, null, 'stripe', 'open', ${at}, ${at}, 0, 1, 20, ${at})
      on conflict (target) do update set state = 'open' where circuit_breakers.state = 'closed'
      returning target`;
    expect(late).toEqual([]);
    expect(await sql`select 1 from circuit_breakers where scope = 'downstream'`).toEqual([]);

    // A breaker's key agrees with its names.
    await expect(sql`
      insert into circuit_breakers (target, scope, agent, downstream, state, probe_at, changed_at)
      values ('downstream:payments/stripe', 'downstream', 'research', 'stripe', 'open', ${at}, ${at})`).rejects.toThrow(
      /circuit_breakers_target_names/,
    );
    await sql`
      insert into circuit_breakers (target, scope, agent, downstream, state, probe_at, changed_at)
      values ('downstream:payments/stripe', 'downstream', 'payments', 'stripe', 'open', ${at}, ${at})`;
  });
});
