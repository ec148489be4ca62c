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
}

/** Opens a pool to the given database. The caller owns it and must close it. */
export function connectDatabase(url: string, options: ConnectOptions = {}): DatabaseConnection {
  const sql = postgres(url, {
    max: options.maxConnections ?? 10,
    connect_timeout: options.connectTimeoutSeconds ?? 10,
    // PostgreSQL's NOTICE messages (e.g. "relation already exists, skipping") are noise here.
    onnotice: () => {},
  });
  return {
    db: drizzle(sql, { schema }),
    sql,
    close: () => sql.end({ timeout: 5 }),
  };
}
