import postgres from 'postgres';

/** Runs `work` on a single short-lived connection, e.g. for CREATE/DROP DATABASE. */
export async function withSql(url: string, work: (sql: postgres.Sql) => Promise<unknown>): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await work(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}
