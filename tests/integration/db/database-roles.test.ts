import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  claimKey,
  clearHold,
  ensureTaskBudget,
  hashContent,
  openHold,
  recordAttempt,
} from '../../../packages/engine/src/core';
import {
  dropAttemptPartitionsBefore,
  ensureAttemptPartitions,
  listAttemptPartitions,
} from '../../../packages/engine/src/db/attempt-partitions';
import { connectDatabase, type DatabaseConnection } from '../../../packages/engine/src/db/client';
import { prepareDatabaseRoles } from '../../../packages/engine/src/db/database-roles';
import { getMigrationState } from '../../../packages/engine/src/db/migration-state';
import { migrateDatabase, migrateNamedDatabase } from '../../../packages/engine/src/db/migrate';
import { verifyAuditChain } from '../../../packages/engine/src/db/verify-audit-chain';
import { anAttempt } from '../../support/attempt-factory';
import { migrationsUpTo } from '../../support/migrations-up-to';
import { addKnownOwners } from '../../support/known-owners';
import { useTestDatabase } from '../../support/test-database';
import { aPerson, anAgent } from '../../support/actors';

const database = useTestDatabase();
// The owners its agents name are known (an unknown one would be given the default owner).
beforeAll(() => addKnownOwners(database.db, ['team:payments']));
const older = useTestDatabase({ migrated: false });
const owner = aPerson('viewer', 'owner@example.com', ['payments']);
const agent = anAgent('payments-worker');
const DAY_MS = 86_400_000;

let app: DatabaseConnection;
beforeAll(() => {
  app = connectDatabase(database.appUrl, { maxConnections: 4 });
});
afterAll(async () => {
  await app?.close();
});

describe('the application role', () => {
  it('is no superuser and owns no table', async () => {
    const [role] = await app.sql<{ user: string; superuser: boolean; owned: number }[]>`
      select current_user as user, rolsuper as superuser,
        (select count(*)::int from pg_class where relowner = pg_roles.oid) as owned
      from pg_roles where rolname = current_user`;
    expect(role).toEqual({ user: 'holdfast_app', superuser: false, owned: 0 });
  });

  it.each([
    ['disabling the triggers', 'alter table audit_log disable trigger all'],
    ['replica mode, which skips triggers', 'set session_replication_role = replica'],
    ['dropping the append-only trigger', 'drop trigger audit_log_no_update_or_delete on audit_log'],
    ['dropping the chain trigger', 'drop trigger audit_log_link_into_chain on audit_log'],
    [
      'replacing the trigger function',
      "create or replace function audit_log_refuse_change() returns trigger language plpgsql as 'begin return old; end'",
    ],
    ['changing a record', "update audit_log set reason = 'rewritten'"],
    ['deleting records', 'delete from audit_log'],
    ['truncating the log', 'truncate audit_log'],
    ['taking the table over', 'alter table audit_log owner to holdfast_app'],
    ['creating a table in public', 'create table public.sneaky (id int)'],
  ])('is refused %s', async (_what, statement) => {
    await expect(app.sql.unsafe(statement)).rejects.toMatchObject({ code: '42501' });
  });

  it("does the app's normal work: health, attempts, keys, holds with their audit records", async () => {
    expect(await getMigrationState(app.db)).toMatchObject({ upToDate: true });
    // The factory's attempt starts on 2026-11-20: its age is judged by this clock, not the machine's.
    const { duplicate } = await recordAttempt(
      { db: app.db, clock: () => new Date('2026-11-21T00:00:00Z') },
      anAttempt(),
    );
    expect(duplicate).toBe(false);

    const key = `task-${randomUUID()}/send_email`;
    expect(await claimKey({ db: app.db }, { key, requestHash: hashContent({ to: 'a@example.com' }) })).toMatchObject({
      outcome: 'acquired',
    });

    const taskId = `task-${randomUUID()}`;
    await ensureTaskBudget(app.db, { taskId, agent: 'payments', owner: 'team:payments' });
    const { hold } = await openHold(
      { db: app.db, actor: agent },
      {
        itemType: 'task',
        itemId: taskId,
        reason: 'needs_approval',
        detail: 'Refund above $500',
        owner: 'team:payments',
      },
    );
    await clearHold({ db: app.db, actor: owner }, { holdId: hold.id, resolution: 'resume', note: 'approved' });
    const records = await app.sql<{ action: string; chain_position: string }[]>`
      select action, chain_position from audit_log where target_type = 'hold' and target_id = ${String(hold.id)} order by id`;
    expect(records).toHaveLength(2);
    expect(records.every((record) => Number(record.chain_position) > 0)).toBe(true);
    expect(await verifyAuditChain(app.sql)).toMatchObject({ whole: true });
  });

  it("maintains the attempt log's partitions through the owner's functions", async () => {
    const day = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - 20 * DAY_MS);
    // A row for a day without its partition waits in the default partition ...
    await recordAttempt(
      { db: app.db },
      anAttempt({ startedAt: new Date(day.getTime() + 3_600_000), finishedAt: new Date(day.getTime() + 3_601_000) }),
    );
    const name = `attempts_p${day.toISOString().slice(0, 10).replaceAll('-', '')}`;
    expect(await ensureAttemptPartitions(app.db, { from: day, to: new Date(day.getTime() + 1) })).toEqual([name]);
    // ... and moves into it when the day is made; the new table is the owner's.
    const [made] = await database.sql<{ owner: string; rows: number }[]>`
      select pg_get_userbyid(relowner) as owner, (select count(*)::int from ${database.sql(name)}) as rows
      from pg_class where relname = ${name}`;
    expect(made).toEqual({ owner: 'holdfast_owner', rows: 1 });

    const { dropped } = await dropAttemptPartitionsBefore(app.db, new Date(day.getTime() + DAY_MS));
    expect(dropped).toEqual([name]);
    expect((await listAttemptPartitions(app.db)).map((partition) => partition.name)).not.toContain(name);
  });

  it('may not drop the days being written, nor anything but a daily partition', async () => {
    const today = new Date().toISOString().slice(0, 10);
    await expect(app.sql`select public.holdfast_drop_attempt_partition(${today}::date)`).rejects.toMatchObject({
      code: '22023',
    });
    await expect(app.sql`select public.holdfast_create_attempt_partition(${'1999-12-31'}::date)`).rejects.toMatchObject(
      { code: '22023' },
    );
    await expect(app.sql.unsafe('drop table attempts_default')).rejects.toMatchObject({ code: '42501' });
  });
});

describe('migrating a named database', () => {
  it('runs as DATABASE_MIGRATION_URL quietly, and warns in one line when only DATABASE_URL is given', async () => {
    const lines: string[] = [];
    await migrateNamedDatabase({ databaseUrl: database.appUrl, migrationUrl: database.ownerUrl }, (line) =>
      lines.push(line),
    );
    expect(lines).toEqual([]);
    await migrateNamedDatabase({ databaseUrl: database.url }, (line) => lines.push(line));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^Warning: DATABASE_MIGRATION_URL is not set, .* the audit log is append-only only against other roles/,
    );
  });
});

describe('a database from before the roles', () => {
  it("is handed to the owner role, joins the audit chain and serves the app's role", async () => {
    // Built as it was: the superuser owns the database and ran migrations 0000-0010.
    await older.sql.unsafe(`alter database "${new URL(older.url).pathname.slice(1)}" owner to postgres`);
    await migrateDatabase(older.url, await migrationsUpTo('0010'));
    await older.sql`insert into audit_log (actor_type, actor_id, action, target_type, target_id, before)
      values ('person', 'a@example.com', 'hold.clear', 'hold', '1', ${JSON.stringify({ status: 'open' })}::jsonb),
             ('system', 'sweeper', 'lock.release', 'slot_lock', 'site/1', null)`;
    await older.sql.unsafe(
      `create table attempts_p20200101 partition of attempts for values from ('2020-01-01 00:00+00') to ('2020-01-02 00:00+00')`,
    );

    await prepareDatabaseRoles({ superuserUrl: older.url, passwords: inject('testDatabaseServer').rolePasswords });
    await migrateDatabase(older.ownerUrl);

    const foreign = await older.sql<{ name: string }[]>`
      select n.nspname || '.' || c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname in ('public', 'drizzle') and c.relkind in ('r', 'p', 'S', 'v', 'm') and pg_get_userbyid(c.relowner) <> 'holdfast_owner'`;
    expect(foreign).toEqual([]);

    const olderApp = connectDatabase(older.appUrl, { maxConnections: 2 });
    try {
      expect(await verifyAuditChain(olderApp.sql)).toMatchObject({ whole: true, records: 2 });
      await expect(olderApp.sql.unsafe('alter table audit_log disable trigger all')).rejects.toMatchObject({
        code: '42501',
      });
      expect(
        await ensureAttemptPartitions(olderApp.db, {
          from: new Date('2020-01-02T00:00:00Z'),
          to: new Date('2020-01-03T00:00:00Z'),
        }),
      ).toEqual(['attempts_p20200102']);
      expect((await dropAttemptPartitionsBefore(olderApp.db, new Date('2020-01-03T00:00:00Z'))).dropped).toEqual([
        'attempts_p20200101',
        'attempts_p20200102',
      ]);
    } finally {
      await olderApp.close();
    }
  });
});
