import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { answersQuery } from '../faults/answers-query';
import { postgresOwner, startGroup, waitFor, type StartedGroup } from './process-groups';

/** Debian's PostgreSQL 15 binaries (`apt-get install postgresql-15`); only the binaries are used. */
export const POSTGRES_15_BIN = '/usr/lib/postgresql/15/bin';

/** Runs a program to its end, as the `postgres` user when this process is root. */
export function runAsPostgres(command: string, args: string[]): string {
  const owner = postgresOwner();
  return execFileSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...owner }).toString();
}

/** A folder the `postgres` user owns (PostgreSQL wants its data folder 0700 and its own). */
export function makePostgresFolder(folder: string): string {
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  const owner = postgresOwner();
  if (owner) fs.chownSync(folder, owner.uid, owner.gid);
  return folder;
}

export interface Postgres15 {
  port: number;
  url(database?: string): string;
  group: StartedGroup;
  stop(): Promise<void>;
}

/** A throwaway PostgreSQL 15 on a loopback port, with the given settings; started in its own process group. */
export async function startPostgres15(
  folder: string,
  port: number,
  settings: Record<string, string | number>,
): Promise<Postgres15> {
  const dataDir = makePostgresFolder(path.join(folder, `pg-${port}`));
  runAsPostgres(path.join(POSTGRES_15_BIN, 'initdb'), [
    '-D',
    dataDir,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--no-sync',
    '--no-instructions',
  ]);
  const options = Object.entries({
    listen_addresses: '127.0.0.1',
    unix_socket_directories: dataDir,
    fsync: 'off',
    ...settings,
  }).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
  const group = startGroup(path.join(POSTGRES_15_BIN, 'postgres'), ['-D', dataDir, '-p', String(port), ...options], {
    asPostgres: true,
  });
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  await waitUntilAccepting(url(), () => group.exited(), group.output);
  return { port, url, group, stop: () => group.stop() };
}

export async function waitUntilAccepting(url: string, exited: () => boolean, output: () => string): Promise<void> {
  await waitFor(
    `PostgreSQL at ${url}`,
    async () => {
      if (exited()) throw new Error(`PostgreSQL exited while starting:\n${output().slice(-2_000)}`);
      return answersQuery(url);
    },
    30_000,
  );
}
