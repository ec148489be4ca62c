import type postgres from 'postgres';
import { openPostgres } from './connection-url';
import type { RolePasswords } from './role-passwords';

/**
 * The two roles Holdfast runs under (see packages/engine/drizzle/0011_add_database_roles.sql):
 * the owner owns every table and runs the migrations; the application role owns
 * nothing, so it cannot disable, drop or bypass the audit log's triggers.
 */
export const OWNER_ROLE = 'holdfast_owner';
export const APP_ROLE = 'holdfast_app';

/** The same server and database as `url`, signed in as another role. */
export function urlForRole(url: string, role: string, password: string): string {
  const signedIn = new URL(url);
  signedIn.username = role;
  signedIn.password = encodeURIComponent(password);
  return signedIn.toString();
}

export interface PrepareRolesOptions {
  /** A superuser's URL of the database the roles are for. */
  superuserUrl: string;
  passwords: RolePasswords;
  /**
   * Let the application role create schemas in this database: pg-boss (the demo
   * fleet) creates and migrates its own `pgboss` schema, which the application
   * then owns. It gains nothing over the owner's tables in `public`.
   */
  appMayCreateSchemas?: boolean;
}

/**
 * As a superuser: makes both roles exist with these passwords (roles are
 * cluster-wide, so another database or an earlier run may have made them),
 * makes the owner role the database's owner, and hands it everything a superuser
 * created before the roles existed (an older embedded cluster), so that the
 * owner can migrate and the application's grants mean something.
 */
export async function prepareDatabaseRoles(options: PrepareRolesOptions): Promise<void> {
  const sql = openPostgres(options.superuserUrl, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    await ensureLoginRole(sql, OWNER_ROLE, options.passwords.owner);
    await ensureLoginRole(sql, APP_ROLE, options.passwords.app);
    const [{ database } = { database: '' }] = await sql<{ database: string }[]>`select current_database() as database`;
    await sql.unsafe(`alter database ${quoteIdentifier(database)} owner to ${OWNER_ROLE}`);
    if (options.appMayCreateSchemas)
      await sql.unsafe(`grant create on database ${quoteIdentifier(database)} to ${APP_ROLE}`);
    await handOverObjects(sql, ['public', 'drizzle'], OWNER_ROLE);
    await handOverObjects(sql, ['pgboss'], APP_ROLE);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function ensureLoginRole(sql: postgres.Sql, role: string, password: string): Promise<void> {
  const attributes = `login nosuperuser nocreatedb nocreaterole nobypassrls password ${quoteLiteral(password)}`;
  const [found] = await sql`select 1 from pg_roles where rolname = ${role}`;
  if (!found) {
    try {
      await sql.unsafe(`create role ${role} ${attributes}`);
      return;
    } catch (error) {
      // Another run on the same server made it a moment ago: fall through and set it up.
      if (!isAlreadyExists(error)) throw error;
    }
  }
  await sql.unsafe(`alter role ${role} ${attributes}`);
}

/**
 * Gives `role` every schema, table, sequence, type and function in `schemas` that
 * another role owns. Indexes follow their tables and sequences made by serial or
 * identity columns follow theirs (PostgreSQL refuses to move those alone);
 * extension members stay with their extension.
 */
async function handOverObjects(sql: postgres.Sql, schemas: string[], role: string): Promise<void> {
  const statements = await sql<{ statement: string }[]>`
    with spaces as (
      select oid, nspname from pg_namespace where nspname = any(${schemas}::text[])
    ), not_extension as (
      select objid from pg_depend where deptype = 'e'
    )
    select format('alter schema %I owner to %I', nspname, ${role}::text) as statement, 0 as step
    from pg_namespace
    where nspname = any(${schemas}::text[]) and nspname <> 'public' and nspowner <> ${role}::regrole
    union all
    select format('alter table %I.%I owner to %I', spaces.nspname, c.relname, ${role}::text), 1
    from pg_class c join spaces on spaces.oid = c.relnamespace
    where c.relkind in ('r', 'p', 'v', 'm', 'f') and c.relowner <> ${role}::regrole
      and c.oid not in (select objid from not_extension)
    union all
    select format('alter sequence %I.%I owner to %I', spaces.nspname, c.relname, ${role}::text), 2
    from pg_class c join spaces on spaces.oid = c.relnamespace
    where c.relkind = 'S' and c.relowner <> ${role}::regrole
      and c.oid not in (select objid from not_extension)
      and not exists (
        select from pg_depend d
        where d.classid = 'pg_class'::regclass and d.objid = c.oid
          and d.refclassid = 'pg_class'::regclass and d.deptype in ('a', 'i'))
    union all
    select format('alter type %I.%I owner to %I', spaces.nspname, t.typname, ${role}::text), 3
    from pg_type t join spaces on spaces.oid = t.typnamespace
    where t.typtype in ('e', 'd', 'r', 'm') and t.typowner <> ${role}::regrole
      and t.oid not in (select objid from not_extension)
    union all
    select format('alter routine %s owner to %I', p.oid::regprocedure, ${role}::text), 4
    from pg_proc p join spaces on spaces.oid = p.pronamespace
    where p.proowner <> ${role}::regrole and p.oid not in (select objid from not_extension)
    order by step`;
  // Sequences linked to a table change owner with it; the ones still listed move on their own.
  for (const { statement } of statements) await sql.unsafe(statement);
}

function isAlreadyExists(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  return code === '42710' || code === '23505';
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
