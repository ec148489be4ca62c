import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { findFreePort } from '../../packages/engine/src/db/embedded-postgres';

const run = promisify(execFile);

/** Debian's PostgreSQL 15 (`apt-get install postgresql-15`): the test needs its own primary and standby. */
export const POSTGRES_BIN = '/usr/lib/postgresql/15/bin';
const NEEDED = ['initdb', 'pg_ctl', 'pg_basebackup', 'postgres'];

/** Why a streaming replica cannot be started here, or undefined when it can. */
export function replicaUnavailableReason(): string | undefined {
  const missing = NEEDED.filter((name) => !existsSync(path.join(POSTGRES_BIN, name)));
  if (missing.length > 0) return `PostgreSQL 15's ${missing.join(', ')} missing from ${POSTGRES_BIN}`;
  if (isRoot() && !existsSync('/usr/sbin/runuser') && !existsSync('/sbin/runuser')) return 'runuser is missing';
  return undefined;
}

// initdb and postgres refuse to run as root: as root, they run as the `postgres` OS user.
const isRoot = () => process.getuid?.() === 0;

async function asPostgres(command: string, args: string[]): Promise<string> {
  const binary = path.join(POSTGRES_BIN, command);
  const [file, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', binary, ...args]] : [binary, args];
  try {
    const { stdout } = await run(file, argv, { timeout: 120_000 });
    return stdout;
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}

export interface Cluster {
  port: number;
  dataDir: string;
  /** A superuser's URL (trust on loopback) of the given database. */
  urlFor(database: string): string;
  start(): Promise<void>;
  /** `pg_ctl stop -m fast`; quiet when already stopped. */
  stop(): Promise<void>;
}

/**
 * A primary and a streaming standby on free loopback ports, in one temporary
 * folder the postgres user owns (unix sockets there too). The primary is
 * started by startPrimary; the standby by startReplica (pg_basebackup -R -X
 * stream), after the caller has put what it wants in the primary.
 */
export async function createReplicaPair() {
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'holdfast-replica-'));
  if (isRoot()) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    await fs.chown(folder, Number(stdout.trim()), Number(group.trim()));
  }
  const clusters: Cluster[] = [];

  const cluster = (name: string, port: number): Cluster => {
    const dataDir = path.join(folder, name);
    const created: Cluster = {
      port,
      dataDir,
      urlFor: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
      start: async () => {
        await asPostgres('pg_ctl', ['-D', dataDir, '-l', path.join(folder, `${name}.log`), '-w', '-t', '60', 'start']);
      },
      stop: async () => {
        if (!existsSync(path.join(dataDir, 'postmaster.pid'))) return;
        await asPostgres('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']);
      },
    };
    clusters.push(created);
    return created;
  };

  /** Lines appended to a cluster's postgresql.conf: later lines win over earlier ones. */
  const configure = (dataDir: string, port: number) =>
    fs.appendFile(
      path.join(dataDir, 'postgresql.conf'),
      [
        '',
        "listen_addresses = '127.0.0.1'",
        `port = ${port}`,
        `unix_socket_directories = '${folder}'`,
        'wal_level = replica',
        'max_wal_senders = 5',
        'hot_standby = on',
        // A test cluster: durability across a power cut is not needed, speed is.
        'fsync = off',
        'full_page_writes = off',
        '',
      ].join('\n'),
    );

  return {
    folder,
    async startPrimary(): Promise<Cluster> {
      const primary = cluster('primary', await findFreePort());
      await asPostgres('initdb', [
        '-D',
        primary.dataDir,
        '--auth=trust',
        '-U',
        'postgres',
        '-E',
        'UTF8',
        '--no-instructions',
      ]);
      await configure(primary.dataDir, primary.port);
      await primary.start();
      return primary;
    },
    async startReplica(primary: Cluster): Promise<Cluster> {
      const replica = cluster('replica', await findFreePort());
      await asPostgres('pg_basebackup', [
        '-D',
        replica.dataDir,
        '-R',
        '-X',
        'stream',
        '-h',
        '127.0.0.1',
        '-p',
        String(primary.port),
        '-U',
        'postgres',
        // Without it pg_basebackup waits for a spread checkpoint: minutes on an idle cluster.
        '--checkpoint=fast',
      ]);
      await configure(replica.dataDir, replica.port);
      await replica.start();
      return replica;
    },
    /** Log lines of both clusters, for a failure message. */
    async logs(): Promise<string> {
      const texts = await Promise.all(
        ['primary', 'replica'].map((name) =>
          fs.readFile(path.join(folder, `${name}.log`), 'utf8').then(
            (text) => `--- ${name}.log\n${text.slice(-3_000)}`,
            () => '',
          ),
        ),
      );
      return texts.join('\n');
    },
    /** Stops both clusters (each even if the other fails) and removes the folder. */
    async destroy(): Promise<void> {
      await Promise.allSettled(clusters.map((each) => each.stop()));
      await fs.rm(folder, { recursive: true, force: true });
    },
  };
}
