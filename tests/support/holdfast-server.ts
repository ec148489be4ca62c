import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { findFreePort } from '../../packages/engine/src/db/embedded-postgres';

const projectRoot = path.resolve(import.meta.dirname, '../..');

/**
 * Every server this test process started and that has not exited. A server whose start outlives its test (a
 * test that timed out while two servers were still starting) is never handed to the test to stop; left
 * running after its file ends, it would spend the machine's CPU for the rest of the run (a demo fleet's
 * server works without pause). The integration project's setup file stops them after each file
 * (leftover-servers.ts), and the process's exit does if that never runs.
 */
const running = new Set<ChildProcess>();

/** SIGKILL to every server still running; resolves once they are gone. */
export async function killLeftoverServers(): Promise<number> {
  const left = [...running];
  await Promise.all(
    left.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
  return left.length;
}

process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface HoldfastServer {
  baseUrl: string;
  port: number;
  process: ChildProcess;
  /** Everything the server printed so far, stdout and stderr interleaved. */
  output(): string;
  /** SIGTERM to the one process (as a process manager sends it); resolves with its exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: the machine died. Resolves once the process is gone. */
  kill(): Promise<void>;
}

/**
 * The production server (`node --import tsx scripts/start.ts`, the command a
 * process manager runs) as a direct child, on the database the test gives it.
 * Defaults: no demo data, no fleet, no sweeps; `env` overrides any of them.
 * Resolves once it says it is ready (or once `readyLine` appears, if given).
 */
export async function startHoldfastServer(options: {
  env: Record<string, string>;
  readyLine?: string;
  readyTimeoutMs?: number;
}): Promise<HoldfastServer> {
  const port = options.env.PORT ? Number(options.env.PORT) : await findFreePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: projectRoot,
    env: {
      ...process.env,
      PORT: String(port),
      HOLDFAST_DEMO: 'off',
      HOLDFAST_DEMO_DATA: 'off',
      HOLDFAST_SWEEP_INTERVAL_SECONDS: '0',
      NEXT_TELEMETRY_DISABLED: '1',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let output = '';
  const append = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const gone = () => child.exitCode !== null || child.signalCode !== null;

  const server: HoldfastServer = {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    process: child,
    output: () => output,
    stop: async () => {
      if (!gone()) child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      if (!gone()) child.kill('SIGKILL');
      await exited;
    },
  };

  const readyLine = options.readyLine ?? 'Holdfast is ready';
  const timeoutMs = options.readyTimeoutMs ?? 240_000;
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`Holdfast was not ready within ${timeoutMs} ms:\n${output}`)),
        timeoutMs,
      );
      const check = () => {
        if (!output.includes(readyLine)) return;
        clearTimeout(timer);
        resolve();
      };
      child.stdout?.on('data', check);
      child.stderr?.on('data', check);
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`Holdfast exited (${code}) before it was ready:\n${output}`));
      });
    });
  } catch (error) {
    await server.kill();
    throw error;
  }
  return server;
}

/**
 * The environment of a production server on a test's own database, signed in with demo accounts (loopback only),
 * as the files that drive it over HTTP start it.
 */
export function demoServerEnv(
  database: { appUrl: string; ownerUrl: string },
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    DATABASE_URL: database.appUrl,
    DATABASE_MIGRATION_URL: database.ownerUrl,
    SESSION_SECRET: randomBytes(32).toString('hex'),
    AUTH_MODE: 'demo',
    HOLDFAST_INSECURE_DEMO: '1',
    ...extra,
  };
}

/**
 * The production server on a test database's two roles (the app's and the migrations' owner), with demo sign-in
 * on loopback, asked for by name as a named database needs; `env` adds to that or overrides it.
 */
export function startServerOn(
  database: { appUrl: string; ownerUrl: string },
  env: Record<string, string> = {},
): Promise<HoldfastServer> {
  return startHoldfastServer({ env: demoServerEnv(database, env) });
}
