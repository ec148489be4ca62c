import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { OWNER_ROLE, prepareDatabaseRoles, urlForRole } from '../../packages/engine/src/db/database-roles';
import { startEmbeddedPostgres } from '../../packages/engine/src/db/embedded-postgres';
import { migrateDatabase } from '../../packages/engine/src/db/migrate';
import { generateRolePasswords, type RolePasswords } from '../../packages/engine/src/db/role-passwords';
import { withSql } from './with-sql';

/**
 * Once per integration run: a PostgreSQL server and a template database built
 * by the real migrations. Each test file then gets its own copy of the template
 * (see test-database.ts), so files never share data.
 *
 * TEST_DATABASE_URL names an existing (preferably fresh) database on any
 * PostgreSQL 15+: it is migrated and becomes the template. Without it, an
 * embedded PostgreSQL runs in a temporary folder for the length of the run.
 *
 * As in production, the owner role (holdfast_owner) owns the template and runs
 * the migrations, and tests may connect as the application role (holdfast_app).
 * Roles are cluster-wide: on a shared server they may exist from an earlier run,
 * and get this run's passwords.
 */

export interface TestDatabaseServer {
  /** A database on the server to run CREATE/DROP DATABASE from. */
  maintenanceUrl: string;
  templateName: string;
  runId: string;
  /** Passwords of the owner and application roles for this run. */
  rolePasswords: RolePasswords;
}

declare module 'vitest' {
  export interface ProvidedContext {
    testDatabaseServer: TestDatabaseServer;
  }
}

export default async function setup(project: TestProject) {
  const runId = `${Date.now().toString(36)}${process.pid.toString(36)}`;
  const given = process.env.TEST_DATABASE_URL;
  let stopEmbedded: (() => Promise<void>) | undefined;
  let tempDir: string | undefined;
  let templateUrl: string;

  if (given) {
    templateUrl = given;
  } else {
    tempDir = await fs.mkdtemp(path.join(os.tmpdir(), 'holdfast-test-'));
    await fs.chmod(tempDir, 0o755); // the postgres user must be able to enter it
    const server = await startEmbeddedPostgres({ dataDir: path.join(tempDir, 'postgres'), throwaway: true });
    stopEmbedded = server.stop;
    templateUrl = server.urlFor(`holdfast_template_${runId}`);
    await withSql(server.urlFor('postgres'), (sql) => sql.unsafe(`create database "holdfast_template_${runId}"`));
  }

  const rolePasswords = generateRolePasswords();
  // The template is what every file copies: the demo fleet's pg-boss may create its schema there.
  await prepareDatabaseRoles({ superuserUrl: templateUrl, passwords: rolePasswords, appMayCreateSchemas: true });
  await migrateDatabase(urlForRole(templateUrl, OWNER_ROLE, rolePasswords.owner));
  const template = new URL(templateUrl);
  const maintenance = new URL(templateUrl);
  maintenance.pathname = '/postgres';
  const server: TestDatabaseServer = {
    maintenanceUrl: maintenance.toString(),
    templateName: decodeURIComponent(template.pathname.slice(1)),
    runId,
    rolePasswords,
  };
  project.provide('testDatabaseServer', server);

  return async () => {
    // Files drop their own databases; this catches those left by a crashed file.
    await withSql(server.maintenanceUrl, async (sql) => {
      const leftovers = await sql<{ datname: string }[]>`
        select datname from pg_database where datname like ${`hf_test_${runId}_%`}`;
      for (const { datname } of leftovers) await sql.unsafe(`drop database if exists "${datname}" with (force)`);
      if (stopEmbedded) await sql.unsafe(`drop database if exists "${server.templateName}" with (force)`);
    });
    await stopEmbedded?.();
    if (tempDir) await fs.rm(tempDir, { recursive: true, force: true });
  };
}
