import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../../packages/engine/src/db/embedded-postgres';

let workDir: string;
let bystander: ChildProcess;

beforeAll(async () => {
  bystander = spawn('sleep', ['60']);
  workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'holdfast-embedded-'));
  await fs.chmod(workDir, 0o755);
});
afterAll(async () => {
  bystander.kill();
  await fs.rm(workDir, { recursive: true, force: true });
});

async function query<T extends postgres.Row>(url: string, text: string): Promise<T[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 3 });
  try {
    return (await sql.unsafe(text)) as unknown as T[];
  } finally {
    await sql.end({ timeout: 1 });
  }
}

describe('embedded PostgreSQL', () => {
  it('keeps its data from one start to the next', async () => {
    const dataDir = path.join(workDir, 'reuse');
    const first = await startEmbeddedPostgres({ dataDir, throwaway: true });
    await query(first.url, `create table kept (value text); insert into kept values ('still here')`);
    await first.stop();

    const second = await startEmbeddedPostgres({ dataDir, throwaway: true });
    try {
      expect(await query(second.url, 'select value from kept')).toEqual([{ value: 'still here' }]);
    } finally {
      await second.stop();
    }
  });

  it.each([
    ['whose process is gone', () => spawnSync('true').pid],
    // After a reboot the old pid often belongs to another program; PostgreSQL alone would refuse to start.
    ['whose pid now belongs to another program', () => bystander.pid],
  ])('starts despite a stale postmaster.pid %s', async (_case, stalePid) => {
    const dataDir = path.join(workDir, `stale-pid-${stalePid()}`);
    await (await startEmbeddedPostgres({ dataDir, throwaway: true })).stop();
    await fs.writeFile(path.join(dataDir, 'postmaster.pid'), `${stalePid()}\n${dataDir}\n0\n5432\n`);

    const restarted = await startEmbeddedPostgres({ dataDir, throwaway: true });
    try {
      expect(await query(restarted.url, 'select 1 as one')).toEqual([{ one: 1 }]);
    } finally {
      await restarted.stop();
    }
  });

  it('stops a server left running by a killed run, then starts its own', async () => {
    const dataDir = path.join(workDir, 'orphan');
    // The first start is never stopped, as if its parent had been killed with SIGKILL.
    const orphan = await startEmbeddedPostgres({ dataDir, throwaway: true });
    await query(orphan.url, `create table marker (id int); insert into marker values (1)`);

    const successor = await startEmbeddedPostgres({ dataDir, throwaway: true });
    try {
      expect(successor.port).not.toBe(orphan.port);
      expect(await query(successor.url, 'select id from marker')).toEqual([{ id: 1 }]);
      await expect(query(orphan.url, 'select 1')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      await successor.stop();
    }
  });

  it('refuses a data directory that holds something other than a cluster', async () => {
    const dataDir = path.join(workDir, 'not-a-cluster');
    await fs.mkdir(dataDir, { recursive: true });
    await fs.writeFile(path.join(dataDir, 'notes.txt'), 'mine');
    await expect(startEmbeddedPostgres({ dataDir })).rejects.toThrow(/not empty but holds no PostgreSQL cluster/);
    expect(await fs.readFile(path.join(dataDir, 'notes.txt'), 'utf8')).toBe('mine');
  });
});
