import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, inject } from 'vitest';
import { withSql } from './with-sql';
import { connectDatabase, type DatabaseConnection } from '../../packages/engine/src/db/client';
import { APP_ROLE, OWNER_ROLE, urlForRole } from '../../packages/engine/src/db/database-roles';

/**
 * Gives the calling test file a database of its own: a copy of the migrated
 * template (or, with `{ migrated: false }`, an empty one), dropped afterwards.
 * `url`, `db` and `sql` sign in as the superuser; `appUrl` as the application
 * role (what the app runs as) and `ownerUrl` as the owner role.
 */
export function useTestDatabase(options: { migrated?: boolean; maxConnections?: number } = {}) {
  const server = inject('testDatabaseServer');
  const name = `hf_test_${server.runId}_${randomBytes(4).toString('hex')}`;
  const handle = { url: '', connection: undefined as DatabaseConnection | undefined };

  beforeAll(async () => {
    const template = options.migrated === false ? 'template0' : server.templateName;
    // Owned by the owner role, like the template: it owns the public schema (PostgreSQL 15+).
    await withSql(server.maintenanceUrl, (sql) =>
      sql.unsafe(`create database "${name}" template "${template}" owner ${OWNER_ROLE}`),
    );
    const url = new URL(server.maintenanceUrl);
    url.pathname = `/${name}`;
    handle.url = url.toString();
    handle.connection = connectDatabase(handle.url, { maxConnections: options.maxConnections ?? 10 });
  });

  afterAll(async () => {
    await handle.connection?.close();
    await withSql(server.maintenanceUrl, (sql) => sql.unsafe(`drop database if exists "${name}" with (force)`));
  });

  return {
    get url() {
      return handle.url;
    },
    get appUrl() {
      return urlForRole(handle.url, APP_ROLE, server.rolePasswords.app);
    },
    get ownerUrl() {
      return urlForRole(handle.url, OWNER_ROLE, server.rolePasswords.owner);
    },
    get db() {
      if (!handle.connection) throw new Error('The test database is ready only inside tests and hooks');
      return handle.connection.db;
    },
    get sql() {
      if (!handle.connection) throw new Error('The test database is ready only inside tests and hooks');
      return handle.connection.sql;
    },
  };
}
