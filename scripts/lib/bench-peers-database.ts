import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { startEmbeddedPostgres } from '@holdfast/engine/db';

/** The durability settings printed beside the figures: they decide what a commit costs. */
export const DURABILITY_SETTINGS = ['fsync', 'synchronous_commit', 'wal_sync_method', 'full_page_writes'] as const;

export interface PeersDatabases {
  /** Which server, and how its durability was chosen. */
  description: string;
  /** TCP URLs of the fresh databases, one per side that keeps its own (set-up and counting). */
  holdfastUrl: string;
  dbosUrl: string;
  /**
   * The same databases through the server's Unix socket, which every measured side uses: DBOS must (its network
   * namespace has loopback alone), and a socket costs a client less CPU per statement than loopback TCP, so the
   * sides meet PostgreSQL the same way.
   */
  holdfastSocketUrl: string;
  dbosSocketUrl: string;
  /** The settings as a session in each database sees them. */
  settings: Record<string, string>;
  serverVersion: string;
  /** Drops the databases (and stops an embedded server). */
  stop: () => Promise<void>;
}

const HOLDFAST_DATABASE = 'holdfast_bench_peers';
const DBOS_DATABASE = 'dbos_bench_peers';

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/**
 * The benchmark's server: BENCH_DATABASE_URL's (any database on it; fresh `holdfast_bench_peers` and
 * `dbos_bench_peers` are made there and dropped after), else a throwaway embedded PostgreSQL. BENCH_DURABLE:
 * `on` commits as a production server does (fsync on, synchronous_commit on), `off` skips the wait for the
 * disk. The embedded server starts with it (default off, as the other benchmarks' throwaway server); on
 * BENCH_DATABASE_URL the server's fsync is as found, and BENCH_DURABLE sets synchronous_commit on the two
 * databases only (ALTER DATABASE), leaving the server's other databases alone.
 */
export async function peersDatabases(): Promise<PeersDatabases> {
  const durable = process.env.BENCH_DURABLE;
  if (durable !== undefined && durable !== 'on' && durable !== 'off') {
    throw new Error(`bench:peers: BENCH_DURABLE must be on or off (got ${durable})`);
  }
  let serverUrl: string;
  let description: string;
  let stopServer = async () => {};
  if (process.env.BENCH_DATABASE_URL) {
    serverUrl = process.env.BENCH_DATABASE_URL;
    const { hostname, port } = new URL(serverUrl);
    description = `PostgreSQL at ${hostname}:${port || 5432} (BENCH_DATABASE_URL), fsync as found, synchronous_commit ${durable ? `${durable} (BENCH_DURABLE, on these databases)` : 'as found'}`;
  } else {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'holdfast-bench-peers-'));
    await fs.chmod(dir, 0o755);
    // throwaway = fsync, synchronous_commit and full_page_writes off (packages/engine/src/db/embedded-postgres.ts).
    const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'postgres'), throwaway: durable !== 'on' });
    serverUrl = server.url;
    description =
      durable === 'on'
        ? 'throwaway embedded PostgreSQL with production durability (BENCH_DURABLE=on)'
        : 'throwaway embedded PostgreSQL, durability off as in the other benchmarks (BENCH_DURABLE=on to commit to disk)';
    stopServer = async () => {
      await server.stop();
      await fs.rm(dir, { recursive: true, force: true });
    };
  }

  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const dropAll = async () => {
    for (const name of [HOLDFAST_DATABASE, DBOS_DATABASE])
      await admin.unsafe(`drop database if exists ${name} with (force)`);
  };
  try {
    await dropAll();
    for (const name of [HOLDFAST_DATABASE, DBOS_DATABASE]) {
      await admin.unsafe(`create database ${name}`);
      if (durable && process.env.BENCH_DATABASE_URL) {
        await admin.unsafe(`alter database ${name} set synchronous_commit = ${durable}`);
      }
    }
  } catch (error) {
    await admin.end({ timeout: 5 });
    await stopServer();
    throw error;
  }

  const holdfastUrl = withDatabase(serverUrl, HOLDFAST_DATABASE);
  const dbosUrl = withDatabase(serverUrl, DBOS_DATABASE);
  const settings = await readSettings(holdfastUrl, dbosUrl);
  const throughSocket = (url: string) => {
    const socket = new URL(url);
    socket.hostname = 'localhost';
    socket.port = settings.port!;
    socket.searchParams.set('host', settings.unix_socket_directories!.split(',')[0]!.trim());
    return socket.toString();
  };
  return {
    description,
    holdfastUrl,
    dbosUrl,
    holdfastSocketUrl: throughSocket(holdfastUrl),
    dbosSocketUrl: throughSocket(dbosUrl),
    settings,
    serverVersion: settings.server_version!,
    stop: async () => {
      try {
        await dropAll();
      } finally {
        await admin.end({ timeout: 5 });
        await stopServer();
      }
    },
  };
}

/** The durability settings as sessions in both databases see them; they must agree, or the run is not like with like. */
async function readSettings(holdfastUrl: string, dbosUrl: string): Promise<Record<string, string>> {
  const names = [...DURABILITY_SETTINGS, 'server_version', 'port', 'unix_socket_directories'];
  const read = async (url: string) => {
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const rows = await sql<{ name: string; setting: string }[]>`
        select name, setting from pg_settings where name = any(${names})`;
      return Object.fromEntries(rows.map((row) => [row.name, row.setting]));
    } finally {
      await sql.end({ timeout: 5 });
    }
  };
  const [holdfast, dbos] = await Promise.all([read(holdfastUrl), read(dbosUrl)]);
  for (const name of DURABILITY_SETTINGS) {
    if (holdfast[name] !== dbos[name]) {
      throw new Error(`bench:peers: ${name} differs between the databases (${holdfast[name]} / ${dbos[name]})`);
    }
  }
  return holdfast;
}
