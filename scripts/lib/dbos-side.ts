import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Figures } from './bench-compare';

/**
 * Starts and drives the DBOS side of `npm run bench:peers` (scripts/lib/bench-peers-dbos.ts) in a child
 * process. By default the child runs in a network namespace of its own with only loopback up
 * (`unshare --map-root-user --net`): whatever DBOS might try to reach (its Conductor, an OTLP collector)
 * cannot leave the machine, while PostgreSQL is reached through its unix socket, which is a path in the
 * file system and so crosses network namespaces. BENCH_DBOS_ISOLATION=none runs it without one.
 */

export type StepKind = 'new' | 'repeat';

export type DbosCommand =
  | { op: 'prepareRepeats'; count: number }
  | { op: 'measure'; kind: StepKind; clients: number; seconds: number }
  | { op: 'stop' };

export interface DbosReply {
  id: number;
  ok: boolean;
  value?: unknown;
  error?: string;
}

export interface DbosSide {
  /** How the child was isolated, and the network interfaces it saw. */
  isolation: string;
  prepareRepeats: (count: number) => Promise<void>;
  measure: (kind: StepKind, clients: number, seconds: number) => Promise<{ figures: Figures; bodyRuns: number }>;
  stop: () => Promise<void>;
}

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const childScript = path.join(projectRoot, 'scripts', 'lib', 'bench-peers-dbos.ts');

/** The command line: node under unshare, loopback brought up first (nothing else exists in a new namespace). */
function commandLine(isolated: boolean): [string, string[]] {
  // --no-deprecation: DBOS's pg calls warn that pg 9 will refuse overlapping queries; noise in a benchmark's output.
  const node = [process.execPath, '--no-deprecation', '--import', 'tsx', childScript];
  if (!isolated) return [node[0]!, node.slice(1)];
  return ['unshare', ['--map-root-user', '--net', '--', 'sh', '-c', 'ip link set lo up && exec "$0" "$@"', ...node]];
}

export async function startDbosSide(systemDatabaseUrl: string): Promise<DbosSide> {
  const isolated = process.env.BENCH_DBOS_ISOLATION !== 'none';
  const [command, args] = commandLine(isolated);
  // None of DBOS's cloud settings may reach the child (DBOS__CLOUD would turn on Conductor and OTLP).
  const env: NodeJS.ProcessEnv = { ...process.env, BENCH_DBOS_SYSTEM_DATABASE_URL: systemDatabaseUrl };
  for (const name of Object.keys(env)) if (name.startsWith('DBOS')) delete env[name];
  const child: ChildProcess = spawn(command, args, {
    cwd: projectRoot,
    env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let exited: Error | undefined;
  child.on('message', (reply: DbosReply) => {
    const waiting = pending.get(reply.id);
    pending.delete(reply.id);
    if (reply.ok) waiting?.resolve(reply.value);
    else waiting?.reject(new Error(`DBOS side: ${reply.error}`));
  });
  child.once('exit', (code, signal) => {
    exited = new Error(`the DBOS side exited (${code ?? signal})`);
    for (const waiting of pending.values()) waiting.reject(exited);
    pending.clear();
  });
  child.once('error', (error) => {
    exited = error;
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
  });

  const request = (id: number, command?: DbosCommand) =>
    new Promise<unknown>((resolve, reject) => {
      if (exited) return reject(exited);
      pending.set(id, { resolve, reject });
      if (command) child.send({ ...command, id });
    });

  const ready = (await request(0)) as { interfaces: string[] };
  const isolation = isolated
    ? `own network namespace, interfaces: ${ready.interfaces.join(', ')}`
    : `no network namespace (BENCH_DBOS_ISOLATION=none), interfaces: ${ready.interfaces.join(', ')}`;
  if (isolated && ready.interfaces.some((name) => name !== 'lo')) {
    child.kill();
    throw new Error(`bench:peers: the DBOS side's namespace has more than loopback (${ready.interfaces.join(', ')})`);
  }

  return {
    isolation,
    prepareRepeats: async (count) => {
      await request(nextId++, { op: 'prepareRepeats', count });
    },
    measure: async (kind, clients, seconds) =>
      (await request(nextId++, { op: 'measure', kind, clients, seconds })) as { figures: Figures; bodyRuns: number },
    stop: async () => {
      if (exited) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      await request(nextId++, { op: 'stop' }).catch(() => {});
      // DBOS shut down; should a handle keep the child alive, it is ended rather than waited for.
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(timer);
    },
  };
}
