import { openPostgres, preparesStatements } from './connection-url';

/** A session setting the probe writes on one connection and reads back on two. */
const PROBE_SETTING = 'holdfast.pooler_probe';

/**
 * Whether a URL leads to a pooler in transaction mode (PgBouncer's usual
 * setup): one client sets a session setting, a second client and then the
 * first read it back. On a real session the second sees nothing and the first
 * sees its own value; through a transaction pooler the second is usually
 * handed the first's server connection and sees its value (PgBouncer reuses
 * the server connection freed last), or the first lands elsewhere and has lost
 * it. A pooler that happens to give each client its own server connection
 * here goes unseen: the request locks' own session mark still refuses it.
 * Unnamed statements only, so the probe itself cannot hang on such a pooler.
 */
export async function losesSessionState(url: string): Promise<boolean> {
  const options = { max: 1, prepare: false, connect_timeout: 10, onnotice: () => {} } as const;
  const first = openPostgres(url, options);
  const second = openPostgres(url, options);
  try {
    const mark = `probe-${process.pid}-${Date.now()}`;
    await first`select set_config(${PROBE_SETTING}, ${mark}, false)`;
    const [seenByOther] = await second<{ value: string | null }[]>`
      select current_setting(${PROBE_SETTING}, true) as value`;
    const [seenByItself] = await first<{ value: string | null }[]>`
      select current_setting(${PROBE_SETTING}, true) as value`;
    return seenByOther?.value === mark || seenByItself?.value !== mark;
  } finally {
    await Promise.all([first.end({ timeout: 2 }), second.end({ timeout: 2 })]);
  }
}

/**
 * What stops Holdfast from running on these URLs behind a transaction pooler,
 * as one line naming the setting to change; undefined when nothing does.
 * `sessionUrl` is where the session locks go (DATABASE_SESSION_URL, else DATABASE_URL).
 */
export async function poolerRefusal(urls: { databaseUrl: string; sessionUrl?: string }): Promise<string | undefined> {
  const sessionUrl = urls.sessionUrl ?? urls.databaseUrl;
  const pooled = await losesSessionState(urls.databaseUrl);
  if (pooled && preparesStatements(urls.databaseUrl))
    return 'DATABASE_URL goes through a pooler in transaction mode, where prepared statements hang: add prepare=false to its query string (docs/operations/poolers.md)';
  const sessionPooled = sessionUrl === urls.databaseUrl ? pooled : await losesSessionState(sessionUrl);
  if (sessionPooled)
    return `${urls.sessionUrl ? 'DATABASE_SESSION_URL' : 'DATABASE_URL'} goes through a pooler in transaction mode, which does not keep the Idempotency-Key locks' session: set DATABASE_SESSION_URL to a direct connection (docs/operations/poolers.md)`;
  return undefined;
}
