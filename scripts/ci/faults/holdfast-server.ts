import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { waitFor } from './killable-postgres';

const projectRoot = path.resolve(import.meta.dirname, '../../..');

export interface HoldfastServer {
  baseUrl: string;
  process: ChildProcess;
  /** The server's stderr so far (the tail), for reports. */
  errors(): string;
  stop(): Promise<void>;
}

/** Every server started here and not yet exited: a suite leaving early (a timeout, a signal) kills them all. */
const running = new Set<ChildProcess>();

/** SIGKILLs every server this process started that is still running (synchronous: safe right before exit). */
export function killAllHoldfastServers(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

/**
 * What the suites start the production server with on a database they give it: demo sign-in (asked for by name,
 * as a database not its own requires), no demo data, no fleet and no sweeps (a suite runs them itself).
 */
export function startEnv(databaseUrl: string, port: number): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    AUTH_MODE: 'demo',
    HOLDFAST_INSECURE_DEMO: '1',
    SESSION_SECRET: randomBytes(32).toString('hex'),
    HOLDFAST_DEMO: 'off',
    HOLDFAST_DEMO_DATA: 'off',
    HOLDFAST_SWEEP_INTERVAL_SECONDS: '0',
    NEXT_TELEMETRY_DISABLED: '1',
  };
}

/**
 * The production server on the given database, started as `npm start` does
 * but with `node --import tsx` (the tsx CLI SIGKILLs its child on SIGTERM),
 * demo sign-in, no demo data, no fleet and no sweeps (the suite runs them itself).
 */
export async function startHoldfastServer(
  databaseUrl: string,
  port: number,
  readyTimeoutMs: number,
  /** More settings, e.g. DATABASE_SESSION_URL beside a pooled DATABASE_URL. */
  extraEnv: Record<string, string> = {},
): Promise<HoldfastServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: projectRoot,
    env: { ...startEnv(databaseUrl, port), ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let output = '';
  let errors = '';
  child.stdout!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8_000)));
  child.stderr!.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-8_000)));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitFor(
      () => {
        if (child.exitCode !== null)
          throw new Error(`Holdfast exited (${child.exitCode}) before it was ready:\n${output}\n${errors}`);
        return output.includes('Holdfast is ready');
      },
      readyTimeoutMs,
      'Holdfast to be ready',
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl: `http://127.0.0.1:${port}`, process: child, errors: () => errors, stop };
}
