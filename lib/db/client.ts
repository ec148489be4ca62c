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
 * it: two round trips per query. Preparing instead makes it one (and lets
 * PostgreSQL reuse the plan); postgres.js keeps one prepared statement per
 * distinct query text and connection, and our query texts are a fixed set.
 */
function preparedByDefault(sql: postgres.Sql): void {
  const unsafe = sql.unsafe.bind(sql);
  sql.unsafe = ((query: string, parameters?: postgres.ParameterOrJSON<never>[], options?: postgres.UnsafeQueryOptions) =>
    unsafe(query, parameters, { ...options, prepare: true })) as postgres.Sql['unsafe'];
}
