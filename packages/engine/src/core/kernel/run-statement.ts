import { DrizzleQueryError, fillPlaceholders, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { PostgresJsSession } from 'drizzle-orm/postgres-js';
import type postgres from 'postgres';
import type { Executor } from '../../db/client';

/**
 * Runs a fixed statement on the executor's connection (the caller's
 * transaction, if it passed one) as `db.execute` would, minus its layers: no
 * `sql` template built and rendered, and on postgres.js no prepared-query
 * object and nested async wrappers either (together they cost more of the
 * process's CPU than the driver's own work for this call). What `db.execute`
 * promises is kept: drizzle's logger sees the statement (the benchmark's
 * ceiling replays what it sees) and a driver error comes wrapped in
 * DrizzleQueryError. The connection prepares it (packages/engine/src/db/client.ts).
 */
export async function runStatement<Row>(db: Executor, text: string, params: unknown[]): Promise<Row[]> {
  const session = db._.session;
  if (!(session instanceof PostgresJsSession)) {
    return session
      .prepareQuery<{ execute: Row[]; all: unknown; values: unknown }>(
        { sql: text, params },
        undefined,
        undefined,
        false,
      )
      .execute();
  }
  session.logger.logQuery(text, params);
  try {
    const client: postgres.Sql = session.client;
    return await client.unsafe<Row[]>(text, params as postgres.ParameterOrJSON<never>[]);
  } catch (error) {
    throw new DrizzleQueryError(text, params, error as Error);
  }
}

/**
 * A statement drizzle builds once, rendered to its SQL text on first use and then only run (runStatement) with
 * new values for its placeholders, on whatever executor the call has: the pool, or the caller's transaction. A
 * prepared drizzle query belongs to the handle it was built on, so one built per transaction was built again on
 * every call: for the key claim's upsert that cost about 1.2 ms of CPU, more than PostgreSQL spends running it.
 * Rows come back as PostgreSQL names them (snake_case, timestamps as text), as runStatement gives them.
 */
export function fixedStatement<Row>(build: (db: Executor) => { toSQL(): { sql: string; params: unknown[] } }) {
  let rendered: { sql: string; params: unknown[] } | undefined;
  return (db: Executor, values: Record<string, unknown>): Promise<Row[]> => {
    rendered ??= build(db).toSQL();
    // drizzle's own filling: each placeholder's value, through its column's encoder where it has one.
    return runStatement<Row>(db, rendered.sql, fillPlaceholders(rendered.params, values));
  };
}

const dialect = new PgDialect();

/**
 * A statement written as a drizzle `sql` template with placeholders (`sql.placeholder('name')`), rendered to
 * its text once, as fixedStatement does for a built query: for statements a query builder cannot write, such
 * as data-modifying CTEs.
 */
export function fixedSql<Row>(build: () => SQL) {
  return fixedStatement<Row>(() => ({ toSQL: () => dialect.sqlToQuery(build()) }));
}
