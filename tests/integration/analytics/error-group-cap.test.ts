import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureAttemptPartitions } from '../../../packages/engine/src/db/attempt-partitions';
import { getErrorGroups } from '../../../lib/queries/error-groups';
import { MAX_ERROR_GROUPS_PER_STEP, OTHER_ERRORS_PATTERN } from '../../../packages/engine/src/rollups/error-groups';
import { rollUpAttempts } from '../../../packages/engine/src/rollups/roll-up';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();
const DAY_MS = 86_400_000;
const at = (time: string) => new Date(`2026-11-20T${time}:00.000Z`);
const retentionFloor = new Date(at('00:00').getTime() - 30 * DAY_MS);
const roll = (time: string) => rollUpAttempts(database.db, { now: at(time), retentionFloor });

/**
 * Failed attempts of one agent's step, message `first` to `last` (each its own pattern: the number is spelled in
 * letters, which the pattern keeps), `times` failures each, starting at `time`; each of its own task, or all of
 * `task`.
 */
async function failures(
  step: string,
  time: string,
  range: { first: number; last: number; times?: number; task?: string },
) {
  await database.db.execute(sql`
    insert into attempts (task_id, agent, step, attempt_number, started_at, finished_at, latency_ms, outcome,
      error_class, error_text, cost_micros)
    select coalesce(${range.task ?? null}::text, 'task-' || g || '-' || t), 'sprawl', ${step}, 1, ${at(time).toISOString()}::timestamptz + g * interval '1 second',
      ${at(time).toISOString()}::timestamptz + g * interval '1 second' + interval '500 milliseconds', 500, 'failed',
      'permanent', 'no handler for field ' || translate(g::text, '0123456789', 'abcdefghij') || ' (row ' || g || ')', 0
    from generate_series(${range.first}::int, ${range.last}::int) as g, generate_series(1, ${range.times ?? 1}::int) as t`);
}

async function groupsOf(step: string) {
  return database.db.execute<{
    fingerprint: string;
    pattern: string;
    error_class: string | null;
    failures: number;
  }>(sql`
    select g.fingerprint, g.pattern, g.error_class, coalesce(sum(h.failures), 0)::int as failures
    from error_groups g left join error_group_hours h on h.fingerprint = g.fingerprint
    where g.agent = 'sprawl' and g.step = ${step}
    group by g.fingerprint, g.pattern, g.error_class`);
}

const failedAttempts = async (step: string) =>
  (
    await database.db.execute<{ count: number }>(
      sql`select count(*)::int as count from attempts where agent = 'sprawl' and step = ${step} and outcome = 'failed'`,
    )
  )[0]!.count;

beforeAll(async () => {
  await ensureAttemptPartitions(database.db, { from: at('00:00'), to: new Date(at('00:00').getTime() + DAY_MS) });
});

describe('error groups per agent and step', () => {
  const cap = MAX_ERROR_GROUPS_PER_STEP;
  const distinct = cap + 60;

  it('keep the cap, the most failing first, and count the rest in one "other" group: nothing dropped', async () => {
    // 260 distinct messages at 10:xx: the last 20 fail three times each (so rank first), the others once; and a
    // step with two messages, untouched by its neighbour's cap.
    await failures('parse', '10:00', { first: 1, last: distinct - 20 });
    await failures('parse', '10:05', { first: distinct - 19, last: distinct, times: 3 });
    await failures('fetch', '10:10', { first: 1, last: 2 });
    await roll('11:30');

    const groups = await groupsOf('parse');
    const other = groups.filter((group) => group.pattern === OTHER_ERRORS_PATTERN);
    const own = groups.filter((group) => group.pattern !== OTHER_ERRORS_PATTERN);
    expect(own).toHaveLength(cap);
    expect(other).toEqual([expect.objectContaining({ error_class: null })]);
    const total = await failedAttempts('parse');
    expect(total).toBe(distinct - 20 + 20 * 3);
    const ownFailures = own.reduce((sum, group) => sum + group.failures, 0);
    // The 20 patterns failing three times are kept: 200 groups hold 60 + 180 failures, the other 60 patterns 60.
    expect(ownFailures).toBe(20 * 3 + (cap - 20));
    expect(other[0]!.failures).toBe(total - ownFailures);
    expect(own.filter((group) => group.failures === 3)).toHaveLength(20);
    expect(await groupsOf('fetch')).toHaveLength(2);

    // The Errors page lists it, its failures adding up with the others' to every failure of the step.
    const view = await getErrorGroups(database.db, {
      window: '24h',
      now: at('11:30'),
      filter: { agent: 'sprawl', step: 'parse' },
      limit: 1_000,
    });
    expect(view.matched).toBe(cap + 1);
    expect(view.groups.find((group) => group.pattern === OTHER_ERRORS_PATTERN)).toMatchObject({
      failures: total - ownFailures,
      errorClass: null,
    });
    expect(view.groups.reduce((sum, group) => sum + group.failures, 0)).toBe(total);
  });

  it('keeps a kept pattern its own later on, folds new ones, and gives a re-rolled hour the same groups', async () => {
    // 11:xx: a pattern kept at 10:xx fails again, and ten new ones.
    await failures('parse', '11:00', { first: distinct, last: distinct });
    await failures('parse', '11:10', { first: distinct + 1, last: distinct + 10 });
    // One task failing with two more new patterns: a task of the other group's hour once.
    await failures('parse', '11:20', { first: distinct + 11, last: distinct + 12, task: 'task-twice' });
    await roll('12:30');
    const groups = await groupsOf('parse');
    expect(groups).toHaveLength(cap + 1);
    const other = groups.find((group) => group.pattern === OTHER_ERRORS_PATTERN)!;
    const ownFailures = groups.reduce((sum, group) => sum + (group === other ? 0 : group.failures), 0);
    expect(ownFailures).toBe(20 * 3 + (cap - 20) + 1);
    expect(other.failures).toBe((await failedAttempts('parse')) - ownFailures);
    const [hourOfOther] = await database.db.execute<{ failures: number; tasks: number }>(
      sql`select failures, tasks from error_group_hours
        where fingerprint = ${other.fingerprint} and hour = ${at('11:00').toISOString()}::timestamptz`,
    );
    expect(hourOfOther).toEqual({ failures: 12, tasks: 11 });

    // A late failure of a new pattern in the 10:xx hour: the hour is rolled again, into the same groups.
    const before = await database.db.execute(
      sql`select fingerprint, failures from error_group_hours where hour = ${at('10:00').toISOString()}::timestamptz order by fingerprint`,
    );
    await failures('parse', '10:50', { first: distinct + 100, last: distinct + 100 });
    await roll('12:40');
    const after = await database.db.execute<{ fingerprint: string; failures: number }>(
      sql`select fingerprint, failures from error_group_hours where hour = ${at('10:00').toISOString()}::timestamptz order by fingerprint`,
    );
    expect(after.map((row) => row.fingerprint)).toEqual(before.map((row) => row.fingerprint));
    expect(after.find((row) => row.fingerprint === other.fingerprint)?.failures).toBe(
      (before as unknown as { fingerprint: string; failures: number }[]).find(
        (row) => row.fingerprint === other.fingerprint,
      )!.failures + 1,
    );
    expect(await groupsOf('parse')).toHaveLength(cap + 1);
  });
});
