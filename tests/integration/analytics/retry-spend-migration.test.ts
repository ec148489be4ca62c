import { describe, expect, it } from 'vitest';
import { migrateDatabase } from '../../../packages/engine/src/db/migrate';
import { rollUpAttempts } from '../../../packages/engine/src/rollups/roll-up';
import { migrationsUpTo } from '../../support/migrations-up-to';
import { useTestDatabase } from '../../support/test-database';

/**
 * Migration 0048 on a database as the previous release left it: every stored attempt gets its share of retry
 * spend by the new rule (the spend beyond one try), and the next rollup pass re-rolls the hours it changed, so
 * the rollups, the metric totals' floor and the execution shapes read the new figure.
 */
const database = useTestDatabase({ migrated: false });
const HOUR_MS = 3_600_000;
const now = new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS + 10 * 60_000);
const at = (minutesAgo: number) => new Date(now.getTime() - minutesAgo * 60_000).toISOString();

/** An execution's attempts as the previous release stored them: [outcome, cost] in order. */
async function storeExecution(taskId: string, tries: ['succeeded' | 'failed', number][], startMinutesAgo: number) {
  for (const [index, [outcome, cost]] of tries.entries()) {
    const startedAt = at(startMinutesAgo - index);
    await database.sql`
      insert into attempt_identities (task_id, step, attempt_number, started_at)
      values (${taskId}, 'answer', ${index + 1}, ${startedAt})`;
    await database.sql`
      insert into attempts (task_id, agent, step, attempt_number, started_at, finished_at, latency_ms, outcome,
        error_class, error_text, cost_micros, source)
      values (${taskId}, 'upgraded', 'answer', ${index + 1}, ${startedAt}, ${startedAt}, 0, ${outcome},
        ${outcome === 'failed' ? 'transient' : null}, ${outcome === 'failed' ? '503 from the provider' : null},
        ${cost}, 'library')`;
  }
}

async function rolledRetrySpend() {
  const [row] = await database.sql<{ retry_spend: string; shapes: string }[]>`
    select (select coalesce(sum(retry_cost_micros), 0) from attempt_rollups
        where grain = 'hour' and agent = 'upgraded')::text as retry_spend,
      (select coalesce(sum(retry_cost_micros), 0) from execution_shape_hours where agent = 'upgraded')::text as shapes`;
  return { rollups: Number(row!.retry_spend), shapes: Number(row!.shapes) };
}

describe('migration 0048: retry spend as the spend beyond one try', () => {
  it('gives every stored attempt its share, and the next pass re-rolls what changed', async () => {
    await migrateDatabase(database.url, await migrationsUpTo('0047'));
    await storeExecution(
      'free-refusals',
      [
        ['failed', 0],
        ['failed', 0],
        ['succeeded', 2_700],
      ],
      150,
    );
    await storeExecution(
      'invalid-output',
      [
        ['failed', 3_000],
        ['succeeded', 3_000],
      ],
      140,
    );
    await storeExecution(
      'long-timeout',
      [
        ['failed', 10_000],
        ['succeeded', 2_000],
      ],
      130,
    );
    await storeExecution(
      'exhausted',
      [
        ['failed', 1_000],
        ['failed', 1_000],
        ['failed', 1_000],
      ],
      120,
    );
    await storeExecution('first-try', [['succeeded', 500]], 110);
    // The previous release's rollups: this release's pass, over a stand-in column holding the old figure.
    await database.sql`alter table attempts add column retry_cost_micros bigint
      generated always as (case when attempt_number > 1 then cost_micros else 0 end) stored`;
    await database.sql`alter table execution_shape_hours add column retry_cost_micros numeric not null default 0`;
    // And the tables this release's pass keeps that later migrations add (0051's families' state, 0054's cost sources).
    await database.sql`create table rollup_family_state (family text primary key, state jsonb not null default '{}',
      updated_at timestamptz not null default now())`;
    await database.sql`create table step_cost_sources (agent text, step text, cost_source text,
      last_seen_at timestamptz not null, primary key (agent, step, cost_source))`;
    const retentionFloor = new Date(now.getTime() - 7 * 24 * HOUR_MS);
    await rollUpAttempts(database.db, { now, retentionFloor });
    await database.sql`alter table attempts drop column retry_cost_micros`;
    await database.sql`alter table execution_shape_hours drop column retry_cost_micros`;
    await database.sql`drop table rollup_family_state`;
    await database.sql`drop table step_cost_sources`;
    // The old figure: every attempt after the first (2,700 + 3,000 + 2,000 + 2,000).
    const [before] = await database.sql<{ retry_spend: string }[]>`
      select sum(retry_cost_micros)::text as retry_spend from attempt_rollups where grain = 'hour' and agent = 'upgraded'`;
    expect(Number(before!.retry_spend)).toBe(9_700);

    await migrateDatabase(database.url);
    const shares = await database.sql<{ task_id: string; attempt_number: number; retry_cost_micros: string }[]>`
      select task_id, attempt_number, retry_cost_micros::text from attempts where agent = 'upgraded'
      order by task_id, attempt_number`;
    const spendOf = (taskId: string) =>
      shares.filter((row) => row.task_id === taskId).reduce((sum, row) => sum + Number(row.retry_cost_micros), 0);
    expect({
      freeRefusals: spendOf('free-refusals'),
      invalidOutput: spendOf('invalid-output'),
      longTimeout: spendOf('long-timeout'),
      exhausted: spendOf('exhausted'),
      firstTry: spendOf('first-try'),
    }).toEqual({ freeRefusals: 0, invalidOutput: 3_000, longTimeout: 10_000, exhausted: 2_000, firstTry: 0 });

    const pass = await rollUpAttempts(database.db, { now, retentionFloor });
    expect(pass.hoursReRolled).toBeGreaterThan(0);
    expect(await rolledRetrySpend()).toEqual({ rollups: 15_000, shapes: 15_000 });
  });
});
