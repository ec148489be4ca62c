import type { Logger } from 'drizzle-orm';
import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as schema from './schema';

export type Database = PostgresJsDatabase<typeof schema>;
/** A transaction handle; library functions accept either this or a Database. */
export type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];
export type Executor = Database | Transaction;

export interface DatabaseConnection {
  db: Database;
  sql: postgres.Sql;
  close: () => Promise<void>;
}

export interface ConnectOptions {
  /** Pool size; the dashboard and tests need few, benchmarks may want more. */
  maxConnections?: number;
  connectTimeoutSeconds?: number;
  /** Sees every query drizzle runs (the benchmark uses it to replay the same statements as bare SQL). */
  logger?: Logger;
}

/** Opens a pool to the given database. The caller owns it and must close it. */
export function connectDatabase(url: string, options: ConnectOptions = {}): DatabaseConnection {
  const sql = postgres(url, {
    max: options.maxConnections ?? 10,
    connect_timeout: options.connectTimeoutSeconds ?? 10,
    // PostgreSQL's NOTICE messages (e.g. "relation already exists, skipping") are noise here.
    onnotice: () => {},
    connection: {
      // Starting parallel workers costs milliseconds (tens on a busy machine), more than the
      // dashboard's reads of rollups take alone; ten times the default setup cost keeps
      // parallel plans for the scans big enough to gain from them (a day of raw log).
      parallel_setup_cost: 10_000,
    },
  });
  preparedByDefault(sql);
  return {
    db: drizzle(sql, { schema, logger: options.logger }),
    sql,
    close: () => sql.end({ timeout: 5 }),
  };
}

/**
 * drizzle runs its queries through postgres.js's `unsafe` with `prepare: false`,
 * and postgres.js then describes every parameterised statement before running
 * it: two round trips per query, and PostgreSQL plans it afresh every time
 * (costly for statements over the partitioned attempt log). Preparing instead
 * makes it one round trip with a cached plan; postgres.js keeps one prepared
 * statement per distinct query text and connection. Transactions and
 * savepoints hand drizzle a connection of their own, so those are patched too.
 */
function preparedByDefault(sql: postgres.Sql | postgres.TransactionSql): void {
  const unsafe = sql.unsafe.bind(sql);
  sql.unsafe = ((
    query: string,
    parameters?: postgres.ParameterOrJSON<never>[],
    options?: postgres.UnsafeQueryOptions,
  ) => unsafe(query, parameters, { ...options, prepare: true })) as postgres.Sql['unsafe'];

  const withPreparedClient = <Callback extends (client: postgres.TransactionSql) => unknown>(callback: Callback) =>
    ((client: postgres.TransactionSql) => {
      preparedByDefault(client);
      return callback(client);
    }) as Callback;

  if ('begin' in sql) {
    const begin = sql.begin.bind(sql) as (...args: unknown[]) => unknown;
    (sql as { begin: unknown }).begin = (...args: unknown[]) => {
      const callback = args.pop() as (client: postgres.TransactionSql) => unknown;
      return begin(...args, withPreparedClient(callback));
    };
  }
  if ('savepoint' in sql) {
    const savepoint = sql.savepoint.bind(sql) as (...args: unknown[]) => unknown;
    (sql as { savepoint: unknown }).savepoint = (...args: unknown[]) => {
      const callback = args.pop() as (client: postgres.TransactionSql) => unknown;
      return savepoint(...args, withPreparedClient(callback));
    };
  }
}
