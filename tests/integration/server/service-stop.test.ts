import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWNER_ROLE, urlForRole } from '../../../packages/engine/src/db/database-roles';
import { findFreePort } from '../../../packages/engine/src/db/embedded-postgres';

/**
 * The production command as a process manager runs it (bin/holdfast, which
 * execs node), on the embedded database with the sweeps and the demo fleet on
 * (`npm start` without DATABASE_URL). One signal to its one pid, never to its
 * group, must stop everything it started.
 */

const projectRoot = path.resolve(import.meta.dirname, '../../..');
const STOP_BUDGET_MS = 10_000;
/** scripts/start.ts: the same signal again within this long is the same stop. */
const REPEAT_SIGNAL_WINDOW_MS = 2_000;
let workDir: string;
const running = new Set<ChildProcess>();
/** Every descendant a test found, for afterAll. */
const seen: ProcessId[] = [];

beforeAll(async () => {
  workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'holdfast-stop-'));
  await fs.chmod(workDir, 0o755); // PostgreSQL runs as `postgres` when we are root: it must enter
});
afterAll(async () => {
  // After a failed test: its server, and whatever it started (PostgreSQL would outlive a killed node).
  for (const child of running) child.kill('SIGKILL');
  for (const known of stillRunning(seen)) process.kill(known.pid, 'SIGKILL');
  await fs.rm(workDir, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  port: number;
  dataDir: string;
  output: () => string;
  exited: Promise<number | null>;
  /** The application role's URL (from HOLDFAST_RUNTIME_FILE), signed in as the owner role instead. */
  ownerUrl: string;
}

/**
 * `bin/holdfast` (from another folder: it finds the project itself, as under systemd),
 * or `npm start` with `via: 'npm'`; `ownGroup` puts it in a process group of its own.
 */
async function startProductionCommand(
  name: string,
  options: { env?: Record<string, string>; via?: 'bin' | 'npm'; ownGroup?: boolean } = {},
): Promise<Started> {
  const dataDir = path.join(workDir, name);
  const runtimeFile = path.join(workDir, `${name}-runtime.json`);
  const port = await findFreePort();
  const [command, args, cwd] =
    options.via === 'npm' ? ['npm', ['start'], projectRoot] : [path.join(projectRoot, 'bin/holdfast'), [], os.tmpdir()];
  const child = spawn(command, args, {
    cwd,
    detached: options.ownGroup ?? false,
    env: {
      ...process.env,
      DATABASE_URL: '',
      PORT: String(port),
      HOLDFAST_DATA_DIR: dataDir,
      HOLDFAST_RUNTIME_FILE: runtimeFile,
      HOLDFAST_DEMO_DATA: 'off',
      HOLDFAST_DEMO: 'auto',
      // Every second, so that a pass is often running when the signal comes.
      HOLDFAST_SWEEP_INTERVAL_SECONDS: '1',
      HOLDFAST_DRAIN_SECONDS: '', // the default, 5 s, unless a test says otherwise
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await pollUntil(240_000, () => {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode} before it was ready:\n${output}`);
    return output.includes('Holdfast is ready') && output.includes('Demo fleet running');
  });
  const { databaseUrl } = JSON.parse(await fs.readFile(runtimeFile, 'utf8')) as { databaseUrl: string };
  const passwords = JSON.parse(await fs.readFile(`${dataDir}-role-passwords.json`, 'utf8')) as { owner: string };
  return {
    child,
    port,
    dataDir,
    output: () => output,
    exited,
    ownerUrl: urlForRole(databaseUrl, OWNER_ROLE, passwords.owner),
  };
}

async function pollUntil(timeoutMs: number, done: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A process by pid and start time, so that a reused pid is not taken for it. */
interface ProcessId {
  pid: number;
  startTime: string;
  name: string;
}

function readStat(
  pid: number,
): { ppid: number; processGroup: number; state: string; startTime: string; name: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The name is in parentheses and may hold spaces; the fields after it are plain.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    return {
      state: fields[0]!,
      ppid: Number(fields[1]),
      processGroup: Number(fields[2]),
      startTime: fields[19]!,
      name,
    };
  } catch {
    return undefined; // gone between readdir and read
  }
}

/** Every process below `root`, found by walking the parent pids in /proc. */
function descendantsOf(root: number): ProcessId[] {
  const children = new Map<number, ProcessId[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (!stat) continue;
    const siblings = children.get(stat.ppid) ?? [];
    siblings.push({ pid: Number(entry), startTime: stat.startTime, name: stat.name });
    children.set(stat.ppid, siblings);
  }
  const found: ProcessId[] = [];
  const visit = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      found.push(child);
      visit(child.pid);
    }
  };
  visit(root);
  seen.push(...found);
  return found;
}

/** Still running: the same process (same start time) and not a zombie awaiting its reaper. */
function stillRunning(processes: ProcessId[]): ProcessId[] {
  return processes.filter((known) => {
    const stat = readStat(known.pid);
    return stat !== undefined && stat.startTime === known.startTime && stat.state !== 'Z';
  });
}

function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/**
 * A request whose first bytes are sent now and the rest later: the connection is
 * busy with it (not idle), so a drain that starts in between must answer it.
 */
async function beginRequest(port: number, requestPath: string) {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(`GET ${requestPath} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
  return {
    /** Sends the end of the headers; resolves with the answer once the server closes the connection. */
    finish: async () => {
      socket.write('\r\n');
      await ended;
      const [head = '', body = ''] = received.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers = Object.fromEntries(
        headerLines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      return { status: Number(statusLine.split(' ')[1]), headers, body };
    },
  };
}

/**
 * A keep-alive connection that has had its answer and sits idle in its agent's pool;
 * `closed` resolves with the time the server closed it. (Not /api/health: that one is held.)
 */
async function idleConnection(port: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let closed: Promise<number> | undefined;
  await new Promise<void>((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path: '/api/v1/openapi.json', agent }, (response) => {
      response.resume();
      response.once('end', resolve);
    });
    request.once('socket', (socket) => {
      closed = new Promise((resolveClosed) => socket.once('close', () => resolveClosed(Date.now())));
    });
    request.once('error', reject);
  });
  return { closed: closed!, agent };
}

/**
 * Holds the migrations table locked (as its owner) so that /api/health, which reads
 * it, stays in flight until `release()`; resolves once a health request waits on it.
 */
async function holdHealthRequest(started: Started) {
  const sql = postgres(started.ownerUrl, { max: 2, onnotice: () => {} });
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked = () => {};
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const transaction = sql
    .begin(async (tx) => {
      await tx`lock table drizzle.__drizzle_migrations in access exclusive mode`;
      locked();
      await released;
    })
    .catch(() => {}); // cut off when PostgreSQL stops under it (the second-signal case)
  await isLocked;
  const inFlight = fetch(`http://127.0.0.1:${started.port}/api/health`).then(
    async (response) => ({ status: response.status, body: (await response.json()) as { status: string } }),
    (error: unknown) => ({ status: 0, body: { status: String(error) } }),
  );
  await pollUntil(10_000, async () => {
    const [row] = await sql<{ waiting: number }[]>`
      select count(*)::int as waiting from pg_locks
      where relation = 'drizzle.__drizzle_migrations'::regclass and not granted`;
    return (row?.waiting ?? 0) > 0;
  });
  return {
    inFlight,
    release: async () => {
      release();
      await transaction;
    },
    close: () => sql.end({ timeout: 1 }).catch(() => {}),
  };
}

/** After a stop: the exit code, and how long until every descendant was gone. */
async function awaitStop(started: Started, descendants: ProcessId[], signalledAt: number) {
  const code = await Promise.race([
    started.exited,
    new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), STOP_BUDGET_MS)),
  ]);
  await pollUntil(
    Math.max(0, STOP_BUDGET_MS - (Date.now() - signalledAt)),
    () => stillRunning(descendants).length === 0,
  ).catch(() => {});
  const ms = Date.now() - signalledAt;
  // The server's own account of its stop, for the log: serving, fleet and sweeps, PostgreSQL.
  console.log(
    (started.output().match(/\[holdfast\] (SIG|Stopp|The fleet|Embedded PostgreSQL stopped).*/g) ?? []).join('\n'),
  );
  return { code, left: stillRunning(descendants).map((known) => `${known.pid} ${known.name}`), ms };
}

describe('the production command stops like a service', () => {
  it('on SIGTERM to its pid: health says draining, requests in flight finish, everything is gone within 10 s, exit 0', async () => {
    const started = await startProductionCommand('sigterm');
    const pid = started.child.pid!;
    // bin/holdfast execs node: the pid a process manager knows is the server itself.
    expect(readStat(pid)?.name).toBe('node');
    const descendants = descendantsOf(pid);
    expect(descendants.filter((known) => known.name === 'postgres').length).toBeGreaterThan(1);

    const held = await holdHealthRequest(started);
    const late = await beginRequest(started.port, '/api/health');
    const idle = await idleConnection(started.port); // opened last: Node closes it itself after 5 s idle
    const signalledAt = Date.now();
    process.kill(pid, 'SIGTERM');
    // The demo fleet stops first, while the server still serves (it is a client of the API); then the server closes.
    const serverClosingAt = pollUntil(5_000, () => started.output().includes('Stopped the demo fleet')).then(() =>
      Date.now(),
    );
    // An idle keep-alive connection is closed at once, not when its keep-alive timeout runs out.
    const idleClosedAt = await idle.closed;
    expect(idleClosedAt - (await serverClosingAt)).toBeLessThan(1_000);
    expect(idleClosedAt - signalledAt).toBeLessThan(5_000);
    idle.agent.destroy();

    await pollUntil(6_000, () => connectionRefused(started.port)); // no new connections...
    const answer = await late.finish(); // ...but the one already open is answered, as draining
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('5');
    expect(answer.headers.connection).toBe('close');
    expect(answer.body).toContain('"status":"draining"');

    await held.release(); // the request that was running when the signal came now finishes
    expect(await held.inFlight).toEqual({ status: 200, body: expect.objectContaining({ status: 'ok' }) });
    await held.close();

    const stop = await awaitStop(started, descendants, signalledAt);
    console.log(`SIGTERM: exit ${stop.code}, every descendant gone ${stop.ms} ms after the signal`);
    expect(stop).toMatchObject({ code: 0, left: [] });
    expect(stop.ms).toBeLessThan(STOP_BUDGET_MS);
    expect(existsSync(path.join(started.dataDir, 'postmaster.pid'))).toBe(false);
    expect(started.output()).toContain('Stopped serving');
    expect(started.output()).not.toContain('cut off');
  }, 300_000);

  it('on SIGINT exits 0 too, and a second SIGINT cuts a long drain short yet still stops PostgreSQL', async () => {
    const started = await startProductionCommand('sigint', { env: { HOLDFAST_DRAIN_SECONDS: '30' } });
    const pid = started.child.pid!;
    const descendants = descendantsOf(pid);
    const held = await holdHealthRequest(started); // never released: only the second signal ends the drain

    const signalledAt = Date.now();
    process.kill(pid, 'SIGINT');
    await pollUntil(6_000, () => connectionRefused(started.port));
    // Sooner, it would count as the same Ctrl-C passed on by npm (see the Ctrl-C test below).
    await pollUntil(3_000, () => Date.now() - signalledAt > REPEAT_SIGNAL_WINDOW_MS + 100);
    process.kill(pid, 'SIGINT');

    const stop = await awaitStop(started, descendants, signalledAt);
    console.log(`SIGINT twice: exit ${stop.code}, every descendant gone ${stop.ms} ms after the first signal`);
    expect(stop).toMatchObject({ code: 0, left: [] });
    expect(stop.ms).toBeLessThan(STOP_BUDGET_MS); // a third of the 30 s drain
    expect((await held.inFlight).status).toBe(0); // its connection was closed under it
    expect(existsSync(path.join(started.dataDir, 'postmaster.pid'))).toBe(false);
    expect(started.output()).toContain('SIGINT again: cutting the drain short');
    expect(started.output()).toContain('1 request(s) still running were cut off');
    expect(started.output()).toContain('Embedded PostgreSQL stopped');
    await held.close();
  }, 300_000);
  it("on SIGTERM to npm start (npm's own pid): npm hands it to the server, which stops everything; exit 0", async () => {
    const started = await startProductionCommand('npm', { via: 'npm' });
    const npmPid = started.child.pid!;
    const descendants = descendantsOf(npmPid);
    // The script execs node, so no shell sits between npm, which relays the signal, and the server
    // (below it: PostgreSQL's watchdog, whose ps name is cut to 15 characters, and PostgreSQL).
    expect(
      descendants.map((known) => known.name).filter((name) => name !== 'postgres' && name !== 'holdfast-pg-wat'),
    ).toEqual(['node']);

    const signalledAt = Date.now();
    process.kill(npmPid, 'SIGTERM');
    const stop = await awaitStop(started, descendants, signalledAt);
    console.log(`SIGTERM to npm: exit ${stop.code}, every descendant gone ${stop.ms} ms after the signal`);
    expect(stop).toMatchObject({ code: 0, left: [] });
    expect(existsSync(path.join(started.dataDir, 'postmaster.pid'))).toBe(false);
    expect(started.output()).toContain('Stopped serving');
  }, 300_000);

  it("on SIGTERM to its whole process group (Playwright's webServer stop; PostgreSQL, in a group of its own, is not signalled): exit 0", async () => {
    const started = await startProductionCommand('group', { ownGroup: true });
    const pid = started.child.pid!;
    const descendants = descendantsOf(pid);

    const signalledAt = Date.now();
    process.kill(-pid, 'SIGTERM');
    const stop = await awaitStop(started, descendants, signalledAt);
    console.log(`SIGTERM to the group: exit ${stop.code}, every descendant gone ${stop.ms} ms after the signal`);
    expect(stop).toMatchObject({ code: 0, left: [] });
    expect(existsSync(path.join(started.dataDir, 'postmaster.pid'))).toBe(false);
  }, 300_000);

  it("on Ctrl-C (SIGINT to npm start's whole group): the request in flight completes, then the fleet, the server and PostgreSQL stop in that order; exit 0", async () => {
    const started = await startProductionCommand('ctrl-c', { via: 'npm', ownGroup: true });
    const npmPid = started.child.pid!;
    const descendants = descendantsOf(npmPid);
    const postmasterPid = Number(readFileSync(path.join(started.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const postmaster = descendants.find((known) => known.pid === postmasterPid);
    // A group of its own: the terminal's signal to the foreground group cannot reach PostgreSQL.
    expect(postmaster).toBeDefined();
    expect(readStat(postmasterPid)?.processGroup).not.toBe(npmPid);
    const held = await holdHealthRequest(started);

    const signalledAt = Date.now();
    process.kill(-npmPid, 'SIGINT'); // what a terminal's Ctrl-C does: npm and node both get it, and npm passes it on
    await pollUntil(6_000, () => connectionRefused(started.port)); // the fleet is down and the server stops taking connections
    // The request is still in flight, and PostgreSQL still serves it.
    expect(stillRunning([postmaster!])).toHaveLength(1);
    expect(started.output()).not.toContain('Stopped serving');
    await held.release();
    expect(await held.inFlight).toEqual({ status: 200, body: expect.objectContaining({ status: 'ok' }) });
    await held.close();

    const stop = await awaitStop(started, descendants, signalledAt);
    console.log(`Ctrl-C to the group: exit ${stop.code}, every descendant gone ${stop.ms} ms after the signal`);
    expect(stop).toMatchObject({ code: 0, left: [] });
    expect(existsSync(path.join(started.dataDir, 'postmaster.pid'))).toBe(false);
    const output = started.output();
    // npm passes its copy of the signal on (when it comes before node is gone: not on every run, as npm
    // forwards it from its own handler): a copy within 2 s is the same stop, and never cuts the drain short.
    if (output.includes('SIGINT again')) expect(output).toContain('SIGINT again within 2 s: the same stop');
    expect(output).not.toContain('cutting the drain short');
    expect(output).not.toContain('cut off');
    const order = ['Stopped the demo fleet', 'Stopped serving', 'Embedded PostgreSQL stopped', 'Stopped in'];
    const positions = order.map((line) => output.indexOf(`[holdfast] ${line}`));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  }, 300_000);
});
