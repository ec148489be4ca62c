import type { Logger } from 'drizzle-orm';
import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import type postgres from 'postgres';
import { openPostgres, preparesStatements } from './connection-url';
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
  const sql = openPostgres(url, {
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
  return {
    // `prepare=false` on the URL (behind a transaction pooler) leaves drizzle's statements unnamed, as postgres.js
    // leaves its own then.
    db: drizzle(preparesStatements(url) ? preparing(sql) : sql, { schema, logger: options.logger }),
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
 * statement per distinct query text and connection.
 *
 * drizzle is handed a view of the pool, not the pool itself: the view's
 * `unsafe` asks for a prepared statement, and its `begin` and `savepoint`
 * hand drizzle the same view of the transaction's connection. Everything else
 * reaches the driver untouched, and the pool the caller gets (`sql`) is the
 * driver's own. tests/integration/db/connection-settings.test.ts checks that
 * drizzle's queries are prepared in all three places, so a driver or drizzle
 * upgrade that takes another path shows there.
 *
 * Prepared, more queries pipeline onto busy connections, which met a driver
 * fault with transactions; patches/postgres+3.4.9.patch fixes it (docs/adr/0006).
 */
function preparing<Client extends postgres.Sql | postgres.TransactionSql>(client: Client): Client {
  const inTransaction =
    (open: 'begin' | 'savepoint') =>
    (...args: unknown[]) => {
      const callback = args.pop() as (transaction: postgres.TransactionSql) => unknown;
      const start = (client as unknown as Record<typeof open, (...rest: unknown[]) => unknown>)[open];
      return start.call(client, ...args, (transaction: postgres.TransactionSql) => callback(preparing(transaction)));
    };
  const overrides: Record<string | symbol, unknown> = {
    unsafe: (query: string, parameters?: postgres.ParameterOrJSON<never>[], options?: postgres.UnsafeQueryOptions) =>
      client.unsafe(query, parameters, { ...options, prepare: true }),
    begin: inTransaction('begin'),
    savepoint: inTransaction('savepoint'),
  };
  return new Proxy(client, {
    get: (target, property, receiver) =>
      property in overrides && property in target ? overrides[property] : Reflect.get(target, property, receiver),
  });
}
