import { execFileSync, spawn, type ChildProcess } from 'node:child_process';

/**
 * Every process the failover suite starts runs in a process group of its own
 * (detached), so that one signal reaches the program and everything it forks
 * (PostgreSQL's backends, Patroni's postgres). Each group is remembered until
 * it exits, and stopAllGroups() SIGKILLs what is left: the suite calls it in
 * its `finally` and on signals, so a failed check never leaves one running.
 */
const groups = new Map<number, ChildProcess>();

export interface StartedGroup {
  child: ChildProcess;
  pid: number;
  /** The last few kilobytes the process wrote (stdout and stderr). */
  output(): string;
  /** SIGKILL to the whole group; resolves once the leader is gone. */
  kill(): Promise<void>;
  /** SIGTERM to the whole group, SIGKILL after `graceMs`; resolves once the leader is gone. */
  stop(graceMs?: number): Promise<void>;
  exited(): boolean;
}

/** PostgreSQL, PgBouncer, etcd and Patroni refuse to run as root: as root they run as the `postgres` user. */
export function postgresOwner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  return {
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
  };
}

export function startGroup(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; asPostgres?: boolean } = {},
): StartedGroup {
  const owner = options.asPostgres ? postgresOwner() : undefined;
  const child = spawn(command, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: options.env ?? process.env,
    cwd: options.cwd,
    ...owner,
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${command} did not start`);
  groups.set(pid, child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-16_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void gone.then(() => groups.delete(pid));
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is gone already.
    }
  };
  return {
    child,
    pid,
    output: () => output,
    exited,
    async kill() {
      signalGroup('SIGKILL');
      if (!exited()) await gone;
    },
    async stop(graceMs = 10_000) {
      signalGroup('SIGTERM');
      const timer = setTimeout(() => signalGroup('SIGKILL'), graceMs);
      if (!exited()) await gone;
      clearTimeout(timer);
      // Children that outlive their leader (a postmaster's backends) go too.
      signalGroup('SIGKILL');
    },
  };
}

/** Whether any process of the group still runs. */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGKILL to every group still running; the suite's last word, failure or not. */
export function stopAllGroups(): void {
  for (const pid of groups.keys()) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  groups.clear();
}

process.once('exit', stopAllGroups);

/** Polls a condition every 100 ms until it holds, or fails after `timeoutMs`. */
export async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Waited ${timeoutMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
