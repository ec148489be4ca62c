import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../../packages/engine/src/db/embedded-postgres';

const projectRoot = path.resolve(import.meta.dirname, '../../..');
let workDir: string;
const running = new Set<ChildProcess>();

beforeAll(async () => {
  workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'holdfast-start-'));
  await fs.chmod(workDir, 0o755);
});
afterAll(async () => {
  for (const child of running) child.kill('SIGKILL');
  await fs.rm(workDir, { recursive: true, force: true });
});

/** Starts `npm start`'s script as a direct child (node + tsx), and resolves once it serves. */
async function startHoldfast(dataDir: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: projectRoot,
    env: {
      ...process.env,
      DATABASE_URL: '',
      PORT: String(port),
      HOLDFAST_DATA_DIR: dataDir,
      HOLDFAST_DEMO_DATA: 'off',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      // The demo fleet starts last (on by default with the embedded database): wait for it too.
      if (output.includes('Holdfast is ready') && output.includes('Demo fleet running')) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`start exited with ${code} before it was ready:\n${output}`)));
  });
  return child;
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

/** PostgreSQL processes whose command line names this data directory. */
async function postgresProcessesFor(dataDir: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const commandLine = await fs.readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (commandLine.includes('postgres') && commandLine.includes(dataDir)) pids.push(Number(entry));
  }
  return pids;
}

describe('npm start on the embedded database', () => {
  it('serves, and on SIGINT stops the web server and PostgreSQL; after a SIGKILL PostgreSQL stops too and the next start comes up', async () => {
    const dataDir = path.join(workDir, 'data');
    const port = await findFreePort();

    const first = await startHoldfast(dataDir, port);
    const health = await fetch(`http://127.0.0.1:${port}/api/health`);
    expect(health.status).toBe(200);
    expect(await postgresProcessesFor(dataDir)).toHaveLength(1);

    // A killed run: PostgreSQL's watchdog sees it go (its stdin closes) and stops PostgreSQL cleanly.
    first.kill('SIGKILL');
    await exited(first);
    const deadline = Date.now() + 20_000;
    while ((await postgresProcessesFor(dataDir)).length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await postgresProcessesFor(dataDir)).toEqual([]);
    await expect(fs.access(path.join(dataDir, 'postmaster.pid'))).rejects.toThrow();

    const second = await startHoldfast(dataDir, port);
    expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200);
    expect(await postgresProcessesFor(dataDir)).toHaveLength(1);

    second.kill('SIGINT'); // what Ctrl-C delivers
    expect(await exited(second)).toBe(0);
    expect(await postgresProcessesFor(dataDir)).toEqual([]);
    await expect(fs.access(path.join(dataDir, 'postmaster.pid'))).rejects.toThrow();
  }, 240_000);
});
