import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApiToken } from '@holdfast/engine/core';
import { connectDatabase } from '@holdfast/engine/db';
import { findFreePort, startEmbeddedPostgres } from '@holdfast/engine/db';
import type { TokenScope } from '@holdfast/protocol/enums';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The benchmarks' database: BENCH_DATABASE_URL if set (a database they may
 * fill), else a throwaway embedded PostgreSQL (durability off, so the
 * figures show Holdfast's cost rather than the disk's), removed at stop.
 */
export async function benchDatabase(name: string): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.BENCH_DATABASE_URL) return { url: process.env.BENCH_DATABASE_URL, stop: async () => {} };
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), `holdfast-${name}-`));
  await fs.chmod(dir, 0o755);
  const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'postgres'), throwaway: true });
  return {
    url: server.url,
    stop: async () => {
      await server.stop();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * An API token for a benchmark's load, made on the migrated database: its rate limit is far above what any
 * benchmark sends, so it is never refused, yet the limit's statement still runs on every request and its
 * cost is in the figures.
 */
export async function createBenchToken(databaseUrl: string, name: string, scopes: TokenScope[]): Promise<string> {
  const setup = connectDatabase(databaseUrl, { maxConnections: 1 });
  try {
    const { token } = await createApiToken(
      { db: setup.db, actor: { type: 'person', id: 'bench@holdfast.local', role: 'admin', teams: [] } },
      { name, scopes, ratePerSecond: 100_000, rateBurst: 1_000_000 },
    );
    return token;
  } finally {
    await setup.close();
  }
}

/**
 * Node flags for the server under load, from BENCH_SERVER_NODE_ARGS (space-separated): to see where its time
 * goes, `BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/server-profile"` writes a CPU profile at its stop.
 */
function serverNodeFlags(): string[] {
  return (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((flag) => flag !== '');
}

/**
 * Holdfast served by `npm start`'s script on the given database (it builds
 * first if the build is stale), signed in through proxy mode (a named database
 * never gets demo sign-in; `signInHeaders` act as an admin), no demo data,
 * no fleet and no sweeps. Its stderr is kept quiet unless it fails to start:
 * load generators end runs by dropping connections mid-request, which it logs.
 */
export async function benchServer(databaseUrl: string, env: Record<string, string> = {}) {
  const port = await findFreePort();
  const sessionSecret = randomBytes(32).toString('hex');
  const proxySecret = randomBytes(24).toString('hex');
  // node itself, not the tsx CLI: the CLI SIGKILLs a child that handles SIGTERM itself, so it could not drain.
  const child = spawn(process.execPath, [...serverNodeFlags(), '--import', 'tsx', 'scripts/start.ts'], {
    cwd: projectRoot,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      AUTH_MODE: 'proxy',
      AUTH_PROXY_SECRET: proxySecret,
      AUTH_PROXY_ROLE_MAP: 'bench-admins=admin',
      SESSION_SECRET: sessionSecret,
      PORT: String(port),
      HOLDFAST_DEMO_DATA: 'off',
      HOLDFAST_DEMO: 'off',
      HOLDFAST_SWEEP_INTERVAL_SECONDS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString()).slice(-4_000);
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Holdfast is ready')) resolve();
    });
    child.once('exit', (code) =>
      reject(new Error(`Holdfast exited (${code}) before it was ready:\n${output}\n${errors}`)),
    );
  });
  let stopping = false;
  // A server that dies under load must say why: its last words, not only the client's "socket hang up".
  child.once('exit', (code, signal) => {
    if (!stopping) console.error(`bench: the Holdfast server exited (${code ?? signal}) mid-run:\n${errors}`);
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    /** The server's process id (its CPU time is in /proc/<pid>/stat). */
    pid: child.pid,
    sessionSecret,
    /** Headers an SSO proxy would send for an admin. */
    signInHeaders: {
      'x-holdfast-proxy-secret': proxySecret,
      'x-forwarded-email': 'bench-admin@holdfast.local',
      'x-forwarded-groups': 'bench-admins',
    },
    stop: async () => {
      stopping = true;
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}
