import type postgres from 'postgres';

/** The server process of a one-connection pool (`connectDatabase(url, { maxConnections: 1 })`): the same for every statement it runs. */
export async function backendPid(sql: postgres.Sql): Promise<number> {
  const [row] = await sql<{ pid: number }[]>`select pg_backend_pid() as pid`;
  if (!row) throw new Error('pg_backend_pid() answered no row');
  return row.pid;
}

/**
 * Waits until the session `pid` is blocked on a lock that `blocker` (a session
 * pid) holds, asking PostgreSQL (pg_blocking_pids) from `observer`, another
 * connection. It polls for that state and never sleeps a fixed time hoping the
 * other statement got there: a race test then releases the blocker knowing the
 * second writer really waited. Throws if it never blocks within `timeoutMs`.
 */
export async function untilBlockedBy(
  observer: postgres.Sql,
  pid: number,
  blocker: number,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await observer<{ blockers: number[] }[]>`select pg_blocking_pids(${pid}::int) as blockers`;
    if (row?.blockers.includes(blocker)) return;
    if (Date.now() > deadline)
      throw new Error(
        `session ${pid} was never blocked by session ${blocker} within ${timeoutMs} ms (blocked by: ${JSON.stringify(row?.blockers ?? [])})`,
      );
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
