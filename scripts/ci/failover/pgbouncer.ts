import fs from 'node:fs';
import path from 'node:path';
import { answersQuery } from '../faults/answers-query';
import { makePostgresFolder } from './postgres-15';
import { startGroup, waitFor, type StartedGroup } from './process-groups';

/** Debian's PgBouncer (`apt-get install pgbouncer`), run from its binary with a config of our own. */
export const PGBOUNCER_BIN = '/usr/sbin/pgbouncer';

export interface PgBouncer {
  port: number;
  /** The pooled URL of a database, as the application would be given it. */
  url(database: string, user?: string): string;
  group: StartedGroup;
  stop(): Promise<void>;
}

/**
 * PgBouncer on a loopback port in front of one PostgreSQL, in transaction
 * mode with `poolSize` server connections per database and user (the setup
 * operators most often choose). Trust authentication, loopback only.
 */
export async function startPgBouncer(options: {
  folder: string;
  port: number;
  upstream: { host: string; port: number };
  poolSize: number;
  /** PgBouncer's `max_client_conn`: every application connection counts. */
  maxClients?: number;
}): Promise<PgBouncer> {
  const folder = makePostgresFolder(path.join(options.folder, `pgbouncer-${options.port}`));
  const config = path.join(folder, 'pgbouncer.ini');
  fs.writeFileSync(path.join(folder, 'userlist.txt'), '"postgres" ""\n');
  fs.writeFileSync(
    config,
    [
      '[databases]',
      `* = host=${options.upstream.host} port=${options.upstream.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${options.port}`,
      `unix_socket_dir = ${folder}`,
      'auth_type = trust',
      `auth_file = ${path.join(folder, 'userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize}`,
      'min_pool_size = 0',
      'reserve_pool_size = 0',
      `max_client_conn = ${options.maxClients ?? 500}`,
      // Holdfast's pool asks for this planner setting at connect; PgBouncer refuses unknown startup parameters.
      'ignore_startup_parameters = extra_float_digits,parallel_setup_cost',
      // A client waiting this long for a server connection is refused: fail loudly rather than hang.
      'query_wait_timeout = 30',
      'server_login_retry = 1',
      `logfile = ${path.join(folder, 'pgbouncer.log')}`,
      `pidfile = ${path.join(folder, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  const group = startGroup(PGBOUNCER_BIN, ['-q', config], { asPostgres: true });
  const url = (database: string, user = 'postgres') => `postgres://${user}@127.0.0.1:${options.port}/${database}`;
  await waitFor(
    'PgBouncer to accept connections',
    async () => {
      if (group.exited()) throw new Error(`PgBouncer exited:\n${group.output()}`);
      return answersQuery(url('postgres'), { prepare: false });
    },
    15_000,
  );
  return { port: options.port, url, group, stop: () => group.stop(5_000) };
}
