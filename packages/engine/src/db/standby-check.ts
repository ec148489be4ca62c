import { openPostgres } from './connection-url';

/**
 * Whether the URL leads to a standby (a server in recovery, read-only). A
 * multi-host DATABASE_URL without `target_session_attrs=primary` may pick the
 * standby of a high-availability pair: postgres.js 3.4 takes `read-write` to mean
 * "default_transaction_read_only is off", which a hot standby also says.
 */
export async function leadsToStandby(url: string): Promise<boolean> {
  const sql = openPostgres(url, { max: 1, prepare: false, connect_timeout: 10, onnotice: () => {} });
  try {
    const [row] = await sql<{ standby: boolean }[]>`select pg_is_in_recovery() as standby`;
    return row?.standby === true;
  } finally {
    await sql.end({ timeout: 2 });
  }
}

/** The one line start-up refuses with when DATABASE_URL leads to a standby. */
export const STANDBY_REFUSAL =
  'DATABASE_URL leads to a standby (read-only, in recovery): name every node of the pair and add target_session_attrs=primary (docs/operations/high-availability.md)';
