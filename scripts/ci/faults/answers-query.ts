import postgres from 'postgres';

/**
 * Whether a PostgreSQL (or a pooler in front of one) at `url` answers a query now: a fresh connection,
 * `select 1`, closed again. For polling a server that is starting; a refusal or a timeout is false.
 */
export async function answersQuery(url: string, options: { prepare?: boolean } = {}): Promise<boolean> {
  const sql = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {}, ...options });
  try {
    await sql`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 });
  }
}
