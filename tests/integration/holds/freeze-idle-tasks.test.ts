import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { freezeIdleTasks } from '../../../packages/engine/src/core/holds/freeze-idle-tasks';
import { runDueSweeps } from '../../../packages/engine/src/scheduler/sweeps';
import { verifyAuditChain } from '../../../packages/engine/src/db/verify-audit-chain';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();

/** `count` active tasks idle for five days, their ids sharing a prefix of their own. */
async function idleTasks(count: number): Promise<{ prefix: string; ids: string[] }> {
  const prefix = `idle-${randomUUID().slice(0, 8)}-`;
  const rows = await database.sql<{ task_id: string }[]>`
    insert into task_budgets (task_id, agent, queue, owner, retry_allowance, spend_ceiling_micros, time_allowance_ms, deadline, updated_at)
    select ${prefix} || n, 'research', 'default', 'team:research', 3, 1000000, 3600000, now() + interval '1 hour', now() - interval '5 days'
    from generate_series(1, ${count}) as n
    returning task_id`;
  return { prefix, ids: rows.map((row) => row.task_id) };
}

/** What the freeze left on the prefix's tasks: statuses, holds per task, and the holds' audit records. */
async function outcomeOf(prefix: string) {
  const [row] = await database.sql<
    { frozen: number; active: number; holds: number; held_tasks: number; most_per_task: number; audited: number }[]
  >`
    select
      (select count(*)::int from task_budgets where task_id like ${`${prefix}%`} and status = 'frozen') as frozen,
      (select count(*)::int from task_budgets where task_id like ${`${prefix}%`} and status = 'active') as active,
      (select count(*)::int from holds where item_type = 'task' and item_id like ${`${prefix}%`} and reason = 'frozen') as holds,
      (select count(distinct item_id)::int from holds where item_type = 'task' and item_id like ${`${prefix}%`}) as held_tasks,
      (select coalesce(max(n), 0)::int from (select count(*) as n from holds where item_type = 'task' and item_id like ${`${prefix}%`} group by item_id) as per_task) as most_per_task,
      (select count(*)::int from audit_log where action = 'hold.open' and target_type = 'hold'
        and target_id in (select id::text from holds where item_type = 'task' and item_id like ${`${prefix}%`})) as audited`;
  return row;
}

/** A clock that moves `stepMs` on at every reading: a pass sees time pass without anyone sleeping. */
function steppingClock(stepMs: number, from = new Date('2030-01-01T00:00:00Z')) {
  let at = from.getTime();
  return () => {
    at += stepMs;
    return new Date(at);
  };
}

async function freezeLease(bucket: string) {
  const [lease] = await database.sql<{ completed: boolean }[]>`
    select completed_at is not null as completed from leases where job = 'freeze_idle_tasks' and bucket = ${bucket}`;
  return lease;
}

/** The outcome when all `count` idle tasks were frozen: none left active, one hold each, each audited. */
const everyOneFrozenOnce = (count: number) => ({
  frozen: count,
  active: 0,
  holds: count,
  held_tasks: count,
  most_per_task: 1,
  audited: count,
});

describe('the freeze pass', () => {
  it('freezes every idle task in one sweep, 1,200 of them, with one audited hold each', async () => {
    const { prefix } = await idleTasks(1_200);
    const now = new Date('2035-03-01T10:05:00Z');

    const reports = await runDueSweeps({ db: database.db, clock: () => now }, {}, now);

    const freeze = reports.find((report) => report.job === 'freeze_idle_tasks');
    expect(freeze).toMatchObject({ ran: true, result: { changed: 1_200, finished: true } });
    expect(freeze?.result?.summary).toBe('1200 idle task(s) frozen for their owners');
    expect(await outcomeOf(prefix)).toEqual(everyOneFrozenOnce(1_200));
    expect(await freezeLease(freeze!.bucket)).toEqual({ completed: true });
  });

  it('stops taking batches once its time budget is spent, and the next pass carries on', async () => {
    const { prefix, ids } = await idleTasks(350);
    // Each reading of the clock is 15 s later: after the first batch 15 s have passed, after the second 30.
    const ctx = { db: database.db, clock: steppingClock(15_000) };
    const options = { idleDays: 3, batchSize: 100, timeBudgetMs: 20_000 };

    const first = await freezeIdleTasks(ctx, options);
    expect({ frozen: first.frozen.length, finished: first.finished }).toEqual({ frozen: 200, finished: false });
    expect(await outcomeOf(prefix)).toMatchObject({ frozen: 200, active: 150, holds: 200 });

    const second = await freezeIdleTasks(ctx, options);
    expect({ frozen: second.frozen.length, finished: second.finished }).toEqual({ frozen: 150, finished: true });
    expect([...first.frozen, ...second.frozen].sort()).toEqual([...ids].sort());
    expect(await outcomeOf(prefix)).toEqual(everyOneFrozenOnce(350));
  });

  it('is continued by the next sweep in the same bucket when a pass stopped after one batch, and only then is the bucket swept', async () => {
    const { prefix } = await idleTasks(250);
    // A budget of 0: every pass does exactly one batch.
    const settings = { freezeBatchSize: 100, freezeTimeBudgetMs: 0 };
    const fire = async (at: string) => {
      const now = new Date(at);
      const reports = await runDueSweeps({ db: database.db, clock: () => now }, settings, now);
      return reports.find((report) => report.job === 'freeze_idle_tasks');
    };

    const first = await fire('2035-04-01T10:05:00Z');
    expect(first).toMatchObject({ ran: true, result: { changed: 100, finished: false } });
    expect(first?.result?.summary).toBe(
      '100 idle task(s) frozen for their owners; more are idle, the next sweep in this bucket carries on',
    );
    expect(await freezeLease(first!.bucket)).toEqual({ completed: false });

    const second = await fire('2035-04-01T10:06:00Z');
    const third = await fire('2035-04-01T10:07:00Z');
    const fourth = await fire('2035-04-01T10:08:00Z');

    expect([second, third].map((report) => [report?.bucket, report?.ran, report?.result?.changed])).toEqual([
      [first!.bucket, true, 100],
      [first!.bucket, true, 50],
    ]);
    expect(third?.result?.finished).toBe(true);
    expect(fourth).toEqual({ job: 'freeze_idle_tasks', bucket: first!.bucket, ran: false });
    expect(await freezeLease(first!.bucket)).toEqual({ completed: true });
    expect(await outcomeOf(prefix)).toEqual(everyOneFrozenOnce(250));
  });

  it('is continued by a later sweep in the same bucket after a pass that died half-way, once its lease has expired', async () => {
    const { prefix } = await idleTasks(150);
    const bucket = '2035-05-01T10:00:00.000Z';
    const now = new Date('2035-05-01T10:30:00Z');
    // A pass that froze one batch and died: its batch committed, its lease was never completed.
    await freezeIdleTasks({ db: database.db }, { batchSize: 100, timeBudgetMs: 0 });
    await database.sql`insert into leases (job, bucket, holder, expires_at) values
      ('freeze_idle_tasks', ${bucket}, 'dead-instance/1', now() + interval '10 minutes')`;

    const whileLive = await runDueSweeps({ db: database.db, clock: () => now }, {}, now);
    expect(whileLive.find((report) => report.job === 'freeze_idle_tasks')).toMatchObject({ bucket, ran: false });

    await database.sql`update leases set expires_at = now() - interval '1 second' where job = 'freeze_idle_tasks' and bucket = ${bucket}`;
    const afterExpiry = await runDueSweeps({ db: database.db, clock: () => now }, {}, now);
    expect(afterExpiry.find((report) => report.job === 'freeze_idle_tasks')).toMatchObject({
      bucket,
      ran: true,
      result: { changed: 50, finished: true },
    });
    expect(await outcomeOf(prefix)).toMatchObject({ frozen: 150, active: 0, holds: 150, most_per_task: 1 });
  });

  it('freezes a task that already has an open hold and keeps that hold as its only one', async () => {
    const { prefix, ids } = await idleTasks(3);
    const [mismatch] = await database.sql<{ id: number }[]>`
      insert into holds (item_type, item_id, reason, detail, owner, opened_by)
      values ('task', ${ids[0]!}, 'payload_mismatch', 'different content', 'team:research', 'system:sweeper')
      returning id`;

    const pass = await freezeIdleTasks({ db: database.db }, { batchSize: 2 });

    expect(pass.frozen.filter((id) => id.startsWith(prefix)).sort()).toEqual([...ids].sort());
    const held = await database.sql<{ item_id: string; reason: string }[]>`
      select item_id, reason from holds where item_id like ${`${prefix}%`} and status = 'open' order by item_id`;
    expect(held).toEqual([
      { item_id: ids[0], reason: 'payload_mismatch' },
      { item_id: ids[1], reason: 'frozen' },
      { item_id: ids[2], reason: 'frozen' },
    ]);
    // Only the two holds the pass opened are audited by it.
    expect(await outcomeOf(prefix)).toMatchObject({ frozen: 3, holds: 2, most_per_task: 1, audited: 2 });
    expect(mismatch).toBeDefined();
  });

  it('never freezes a task twice nor opens two holds for one, however many passes run at once', async () => {
    const { prefix, ids } = await idleTasks(1_200);

    // Eight passes on as many connections, in small batches so that they interleave many times.
    const passes = await Promise.all(
      Array.from({ length: 8 }, () => freezeIdleTasks({ db: database.db }, { batchSize: 25, timeBudgetMs: 60_000 })),
    );

    const frozen = passes.flatMap((pass) => pass.frozen).filter((id) => id.startsWith(prefix));
    expect(frozen).toHaveLength(1_200);
    expect(new Set(frozen).size).toBe(1_200);
    expect([...frozen].sort()).toEqual([...ids].sort());
    expect(passes.every((pass) => pass.finished)).toBe(true);
    // The race really happened: the work was shared between passes.
    expect(passes.filter((pass) => pass.frozen.length > 0).length).toBeGreaterThan(1);
    // Each batch's records went into the audit chain in one statement, and the chain is whole.
    expect(await verifyAuditChain(database.sql)).toMatchObject({ whole: true });
    expect(await outcomeOf(prefix)).toEqual(everyOneFrozenOnce(1_200));
  });
});
