import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { otherPort, postgresPort } from './ports';
import { makePostgresFolder, POSTGRES_15_BIN } from './postgres-15';
import { groupAlive, postgresOwner, startGroup, waitFor, type StartedGroup } from './process-groups';

const run = promisify(execFile);

/** Debian's `etcd-server` and `patroni` packages; only their binaries are used. */
const ETCD_BIN = '/usr/bin/etcd';
const PATRONI_BIN = '/usr/bin/patroni';
const PATRONICTL_BIN = '/usr/bin/patronictl';

/**
 * The DCS timings: a leader key lives `ttl` seconds unless renewed, each node
 * runs its loop every `loop_wait`. A node that dies whole is replaced after at
 * most `ttl`; a postmaster that dies under a live Patroni is handled at its next
 * loop (primary_start_timeout 0: no restart in place, the standby takes over).
 */
const DCS = { ttl: 10, loop_wait: 1, retry_timeout: 3 };

export function patroniUnavailableReason(): string | undefined {
  const missing = [ETCD_BIN, PATRONI_BIN, PATRONICTL_BIN, path.join(POSTGRES_15_BIN, 'postgres')].filter(
    (binary) => !existsSync(binary),
  );
  return missing.length > 0 ? `${missing.join(', ')} missing` : undefined;
}

export interface PatroniNode {
  name: string;
  pgPort: number;
  restPort: number;
  config: string;
  dataDir: string;
  group?: StartedGroup;
  /** Starts (or starts again) Patroni on this node; its PostgreSQL comes up as it decides. */
  start(): void;
  /** SIGKILL to the postmaster alone: Patroni on the node lives on. */
  killPostmaster(): Promise<void>;
  /** SIGKILL to Patroni and its PostgreSQL together: the machine is gone. */
  killNode(): Promise<void>;
  /** What the node's REST API says of it: `primary`, `replica`, or undefined when it does not answer. */
  role(): Promise<string | undefined>;
}

export interface PatroniCluster {
  nodes: PatroniNode[];
  /** A multi-host URL naming every node, as Holdfast's DATABASE_URL. */
  url(extra: string): string;
  leader(): Promise<PatroniNode | undefined>;
  /** `patronictl switchover` to the given node, as an operator runs it. */
  switchover(candidate: PatroniNode): Promise<string>;
  /** How each node's PostgreSQL reached its state: Patroni's output, for a failure message. */
  logs(): string;
  stop(): Promise<void>;
}

/**
 * One etcd member and two PostgreSQL 15 nodes managed by Patroni, on loopback,
 * with synchronous replication on: a commit is acknowledged only once the
 * standby has it too, so a failover loses no acknowledged write.
 */
export async function startPatroniCluster(folder: string): Promise<PatroniCluster> {
  const home = makePostgresFolder(path.join(folder, 'patroni'));
  const clientPort = await otherPort();
  const peerPort = await otherPort();
  const etcd = startGroup(
    ETCD_BIN,
    [
      '--name=holdfast',
      `--data-dir=${path.join(home, 'etcd')}`,
      `--listen-client-urls=http://127.0.0.1:${clientPort}`,
      `--advertise-client-urls=http://127.0.0.1:${clientPort}`,
      `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
      `--initial-cluster=holdfast=http://127.0.0.1:${peerPort}`,
      // python3-etcd, Patroni's client on Debian, speaks the v2 API.
      '--enable-v2=true',
    ],
    { asPostgres: true, env: { ...process.env, ETCD_UNSUPPORTED_ARCH: '' } },
  );
  await waitFor(
    'etcd',
    async () => {
      if (etcd.exited()) throw new Error(`etcd exited:\n${etcd.output()}`);
      return fetch(`http://127.0.0.1:${clientPort}/health`).then(
        (response) => response.ok,
        () => false,
      );
    },
    20_000,
  );

  const nodes: PatroniNode[] = [];
  for (const name of ['node1', 'node2']) {
    const pgPort = await postgresPort();
    const restPort = await otherPort();
    const dataDir = path.join(home, name);
    const config = path.join(home, `${name}.yml`);
    fs.writeFileSync(config, patroniConfig({ name, pgPort, restPort, dataDir, home, etcdPort: clientPort }));
    const owner = postgresOwner();
    if (owner) fs.chownSync(config, owner.uid, owner.gid);
    const node: PatroniNode = {
      name,
      pgPort,
      restPort,
      config,
      dataDir,
      start() {
        node.group = startGroup(PATRONI_BIN, [config], { asPostgres: true, cwd: home });
      },
      async killPostmaster() {
        const pid = postmasterPid(dataDir);
        process.kill(pid, 'SIGKILL');
        await waitFor('the postmaster to be gone', () => !processAlive(pid), 10_000);
      },
      async killNode() {
        // Patroni starts PostgreSQL in a session of its own (so that PostgreSQL outlives a Patroni restart):
        // the machine's loss takes both groups, Patroni's and the postmaster's with its backends.
        // Both groups are signalled in one tick, before anything is awaited: a machine dies at once, and a loaded
        // event loop between the two signals once let a bulk redrive finish on the dying primary.
        const postmaster = postmasterPid(dataDir);
        const patroni = node.group?.pid;
        const patroniGone = node.group?.kill();
        try {
          process.kill(-postmaster, 'SIGKILL');
        } catch {
          process.kill(postmaster, 'SIGKILL');
        }
        await patroniGone;
        await waitFor(
          `${name}'s processes to be gone`,
          () => !groupAlive(postmaster) && !processAlive(postmaster) && (!patroni || !groupAlive(patroni)),
          10_000,
        );
      },
      async role() {
        try {
          const response = await fetch(`http://127.0.0.1:${restPort}/patroni`, { signal: AbortSignal.timeout(2_000) });
          const body = (await response.json()) as { role?: string; state?: string };
          return body.state === 'running' ? body.role : undefined;
        } catch {
          return undefined;
        }
      },
    };
    nodes.push(node);
  }

  const cluster: PatroniCluster = {
    nodes,
    url: (extra) => `postgres://postgres@${nodes.map((node) => `127.0.0.1:${node.pgPort}`).join(',')}/postgres${extra}`,
    async leader() {
      for (const node of nodes) if (isPrimary(await node.role())) return node;
      return undefined;
    },
    async switchover(candidate) {
      const { stdout, stderr } = await run(
        PATRONICTL_BIN,
        ['-c', candidate.config, 'switchover', '--candidate', candidate.name, '--force'],
        { timeout: 60_000 },
      );
      return `${stdout}${stderr}`.trim().split('\n').slice(-1)[0] ?? '';
    },
    logs: () => nodes.map((node) => `--- ${node.name}\n${node.group?.output().slice(-3_000) ?? ''}`).join('\n'),
    async stop() {
      await Promise.allSettled(nodes.map((node) => node.group?.stop(10_000)));
      await etcd.stop(5_000);
    },
  };

  try {
    // One node first, so that it bootstraps the cluster; the second then clones it.
    nodes[0]!.start();
    await waitFor('node1 to lead', async () => isPrimary(await nodes[0]!.role()), 60_000);
    nodes[1]!.start();
    await waitForSynchronousStandby(nodes[0]!, nodes[1]!, 60_000);
  } catch (error) {
    const logs = cluster.logs();
    await cluster.stop();
    throw new Error(`${(error as Error).message}\n${logs}`);
  }
  return cluster;
}

/** Whether `name` is the synchronous standby of the leader `leader`, as the leader's REST API tells. */
async function synchronousStandby(leader: PatroniNode, name: string): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${leader.restPort}/cluster`, { signal: AbortSignal.timeout(2_000) });
    const body = (await response.json()) as { members?: { name: string; role: string; state: string }[] };
    // Patroni 3.0 says `sync_standby` and `running` (later versions `streaming`).
    return (body.members ?? []).some(
      (member) =>
        member.name === name && member.role === 'sync_standby' && ['running', 'streaming'].includes(member.state),
    );
  } catch {
    return false;
  }
}

export async function waitForSynchronousStandby(
  leader: PatroniNode,
  standby: PatroniNode,
  timeoutMs: number,
): Promise<void> {
  await waitFor(
    `${standby.name} to stream as ${leader.name}'s synchronous standby`,
    () => synchronousStandby(leader, standby.name),
    timeoutMs,
  );
}

/** The running postmaster's pid, from the first line of its postmaster.pid. */
function postmasterPid(dataDir: string): number {
  return Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/** Patroni 3.0 still says `master` in places; later versions say `primary`. */
export const isPrimary = (role: string | undefined) => role === 'primary' || role === 'master';

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function patroniConfig(node: {
  name: string;
  pgPort: number;
  restPort: number;
  dataDir: string;
  home: string;
  etcdPort: number;
}): string {
  return `scope: holdfast
name: ${node.name}
restapi:
  listen: 127.0.0.1:${node.restPort}
  connect_address: 127.0.0.1:${node.restPort}
etcd:
  host: 127.0.0.1:${node.etcdPort}
bootstrap:
  dcs:
    ttl: ${DCS.ttl}
    loop_wait: ${DCS.loop_wait}
    retry_timeout: ${DCS.retry_timeout}
    maximum_lag_on_failover: 1048576
    # A killed postmaster is not restarted in place: the standby takes over at once.
    primary_start_timeout: 0
    # A commit is acknowledged once the standby has it: a failover loses no acknowledged write.
    synchronous_mode: true
    postgresql:
      use_pg_rewind: true
      # A former primary killed with WAL its standby never confirmed has diverged: rewound, or cloned again when
      # rewinding is not possible (a test cluster's data is small; an operator decides this for production).
      remove_data_directory_on_rewind_failure: true
      remove_data_directory_on_diverged_timelines: true
      use_slots: true
      parameters:
        wal_log_hints: 'on'
        max_connections: 60
        fsync: 'off'
        full_page_writes: 'off'
  initdb:
    - encoding: UTF8
    - auth: trust
postgresql:
  listen: 127.0.0.1:${node.pgPort}
  connect_address: 127.0.0.1:${node.pgPort}
  data_dir: ${node.dataDir}
  bin_dir: ${POSTGRES_15_BIN}
  pgpass: ${path.join(node.home, `${node.name}.pgpass`)}
  # A clone starts at once rather than waiting out a spread checkpoint on the leader (minutes, now and then).
  basebackup:
    - checkpoint: 'fast'
  pg_hba:
    - local all all trust
    - host all all 127.0.0.1/32 trust
    - host replication all 127.0.0.1/32 trust
  authentication:
    superuser:
      username: postgres
    replication:
      username: postgres
    rewind:
      username: postgres
  parameters:
    unix_socket_directories: '${node.home}'
tags:
  nofailover: false
  noloadbalance: false
  clonefrom: false
  nosync: false
`;
}
