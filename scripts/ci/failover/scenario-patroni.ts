import { createApiToken } from '@holdfast/engine/core';
import { connectDatabase, type DatabaseConnection } from '@holdfast/engine/db';
import { migrateDatabase } from '@holdfast/engine/db';
import { runChecks, type Check } from '../faults/checks';
import { retryWhileUnavailable } from '../faults/redrive-and-sweep';
import { startHoldfastServer, type HoldfastServer } from '../faults/holdfast-server';
import { startKeyedWriters, type KeyedWriters } from './keyed-writers';
import {
  isPrimary,
  startPatroniCluster,
  waitForSynchronousStandby,
  type PatroniCluster,
  type PatroniNode,
} from './patroni';
import { otherPort } from './ports';
import { refusedStart } from './refused-start';
import { waitFor } from './process-groups';
import { beginRedriveAcrossSwitch } from './redrive-across-switch';
import { startStepWriters, type StepWriters, stepsNotCompletedOnce } from './step-writers';
import { batchesNotStoredOnce } from './stored-once';

const WRITERS = 4;
const STEP_WRITERS = 2;
const admin = { type: 'person' as const, id: 'failover-suite@holdfast.local', role: 'admin' as const, teams: [] };
/** postgres.js picks the node that is not in recovery (`read-write` would take a hot standby too). */
const PRIMARY_ONLY = '?target_session_attrs=primary';
/** The first half of the Idempotency-Key locks' advisory key (lib/server/request-locks.ts). */
const IDEMPOTENCY_LOCK_NAMESPACE = 0x4f1d;

interface Switch {
  name: string;
  /** A bulk redrive runs across this switch (started before it, carried on by a sweep after it). */
  underRedrive?: boolean;
  /** Makes the leader go away (or hands it over); resolves once done. */
  cause(leader: PatroniNode, standby: PatroniNode): Promise<void>;
  /** Brings the old leader back as a standby, if the cause took it down. */
  recover?(oldLeader: PatroniNode): Promise<void>;
}

/**
 * A Patroni pair (synchronous replication) under one Holdfast production
 * server whose DATABASE_URL names both nodes, with keyed writers running all
 * through: the primary's postmaster SIGKILLed, the whole primary node (Patroni
 * and PostgreSQL) SIGKILLed, then a `patronictl switchover`. Each time the old
 * primary comes back as the standby before the next. Checked: writers saw only
 * 200, 409 (in progress) and 503 with Retry-After; every acknowledged batch is
 * stored exactly once; the server ran through without a restart; no
 * Idempotency-Key lock is left held. Printed: kill → first acknowledgement.
 * First: a server pointed at the standby alone refuses to start.
 */
export async function patroniScenario(folder: string, log: (line: string) => void): Promise<Check[]> {
  const started = Date.now();
  const cluster = await startPatroniCluster(folder);
  log(`Patroni pair up with a synchronous standby in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  let server: HoldfastServer | undefined;
  let library: DatabaseConnection | undefined;
  let writers: KeyedWriters | undefined;
  let stepWriters: StepWriters | undefined;
  try {
    const url = cluster.url(PRIMARY_ONLY);
    await migrateDatabase(url);
    library = connectDatabase(url, { maxConnections: 2, connectTimeoutSeconds: 3 });
    const { token } = await createApiToken(
      { db: library.db, actor: admin },
      { name: 'failover-writers', scopes: ['ingest'], ratePerSecond: 100_000, rateBurst: 1_000_000 },
    );
    const [leader, standby] = await rolesOf(cluster);
    const refusal = refusedStart(`postgres://postgres@127.0.0.1:${standby.pgPort}/postgres`, 6598, 'standby');
    log(`a server pointed at the standby alone: ${refusal.line}`);

    server = await startHoldfastServer(url, await otherPort(), 120_000);
    writers = startKeyedWriters([server.baseUrl], token, WRITERS, 'ha');
    stepWriters = startStepWriters(server.baseUrl, token, STEP_WRITERS, `ha-steps-${Date.now()}`);
    const writerLog = writers.log;
    const stepLog = stepWriters.log;
    await waitFor('the writers to get going', () => writerLog.acked.length >= 8, 60_000);
    await waitFor('the step writers to get going', () => stepLog.completed.length >= 4, 60_000);
    log(`Holdfast on ${url}; writers acknowledged; primary is ${leader.name}`);

    const switches: Switch[] = [
      {
        name: 'postmaster SIGKILLed',
        cause: (old) => old.killPostmaster(),
        // Patroni on the old primary starts its PostgreSQL again, now following the new primary (pg_rewind if needed).
      },
      {
        name: 'whole node SIGKILLed',
        underRedrive: true,
        cause: (old) => old.killNode(),
        recover: async (old) => old.start(),
      },
      {
        name: 'patronictl switchover',
        cause: async (_old, candidate) => {
          log(`  patronictl: ${await cluster.switchover(candidate)}`);
        },
      },
    ];
    const figures: string[] = [];
    const redriveChecks: [string, boolean, unknown][] = [];
    for (const change of switches) {
      const [oldLeader, candidate] = await rolesOf(cluster);
      await waitForSynchronousStandby(oldLeader, candidate, 90_000);
      const redrive = change.underRedrive ? await beginRedriveAcrossSwitch(library.db, log) : undefined;
      const stepsBefore = stepLog.completed.length;
      const causedAt = Date.now();
      await change.cause(oldLeader, candidate);
      await waitFor(`${candidate.name} to be promoted`, async () => isPrimary(await candidate.role()), 90_000);
      const promotedAt = Date.now();
      // Settled: acknowledgements again after the round's last refusal (503), a few per writer.
      const refusalsSince = () => writerLog.unavailableAt.filter((at) => at > causedAt);
      const lastRefusal = () => Math.max(causedAt, ...refusalsSince());
      await waitFor(
        'the writers to be acknowledged again',
        () => writerLog.ackedAt.filter((at) => at > lastRefusal()).length >= 2 * WRITERS,
        90_000,
      );
      const refusals = refusalsSince();
      const firstAckAfterRefusals = Math.min(...writerLog.ackedAt.filter((at) => at > lastRefusal()));
      const acks = writerLog.ackedAt.filter((at) => at > causedAt - 1_000);
      const longestPause = Math.max(...acks.slice(1).map((at, index) => at - acks[index]!));
      const refusalFigure =
        refusals.length === 0
          ? 'no 503 seen'
          : `${refusals.length} 503s from ${seconds(refusals[0]! - causedAt)} to ${seconds(lastRefusal() - causedAt)}, first acknowledgement after them at ${seconds(firstAckAfterRefusals - causedAt)}`;
      const figure = `${change.name}: ${candidate.name} primary after ${seconds(promotedAt - causedAt)}; ${refusalFigure}; longest pause between acknowledgements ${seconds(longestPause)}`;
      await waitFor(
        'the step writers to complete steps again',
        () => stepLog.completedAt.filter((at) => at > promotedAt).length >= STEP_WRITERS,
        90_000,
      );
      figures.push(figure);
      log(`${figure}; steps completed meanwhile ${stepLog.completed.length - stepsBefore}`);
      if (redrive) redriveChecks.push(...(await redrive.finish(change.name)));
      await change.recover?.(oldLeader);
      await waitFor(
        `${oldLeader.name} back as the standby`,
        async () => (await oldLeader.role()) === 'replica',
        90_000,
      );
    }
    await writers.stop();
    await stepWriters.stop();
    // The suite's own pool may still hold a connection the switchover ended: like any client, it tries again.
    const db = library.db;
    const stored = await retryWhileUnavailable(() => batchesNotStoredOnce(db, writerLog, 'ha'));
    const steps = await retryWhileUnavailable(() => stepsNotCompletedOnce(db, stepLog));
    const stepStatusesSeen = Object.keys(stepLog.statuses).filter((status) => !['200', '409', '503'].includes(status));
    log(
      `step writers: ${stepLog.completed.length} steps completed, ${stepLog.gaveUp.length} given up, statuses ${JSON.stringify(stepLog.statuses)}`,
    );
    const sqlClient = library.sql;
    const [locks] = await retryWhileUnavailable(
      () => sqlClient<{ held: number }[]>`
      select count(*)::int as held from pg_locks where locktype = 'advisory' and classid = ${IDEMPOTENCY_LOCK_NAMESPACE}`,
    );
    if (writerLog.errors.length > 0) log(`server stderr (tail): ${server.errors().slice(-3_000)}`);
    const unexpected = Object.keys(writerLog.statuses).filter((status) => !['200', '409', '503'].includes(status));
    log(
      `writers: ${writerLog.acked.length} batches acknowledged, statuses ${JSON.stringify(writerLog.statuses)}, ${writerLog.unavailableAt.length} 503s, ${writerLog.inProgressAt.length} 409s`,
    );
    return runChecks('a Patroni pair failing over', [
      ['a server pointed at the standby refuses to start, with one line', refusal.ok, refusal.line],
      ['writers saw only 200, 409 and 503 (no network error, no 500)', unexpected.length === 0, writerLog.statuses],
      [
        'every 503 carried Retry-After, and no other 5xx came',
        writerLog.errors.length === 0,
        writerLog.errors.slice(0, 5),
      ],
      ['every acknowledged batch is stored exactly once', stored.notOnce.length === 0, stored.notOnce.slice(0, 5)],
      ['no batch stored that no writer was told about', stored.unexplained.length === 0, stored.unexplained],
      ['the writers gave up on no batch', writerLog.gaveUp.length === 0, writerLog.gaveUp],
      ['no Idempotency-Key lock is left held', locks?.held === 0, `${locks?.held} held`],
      [
        'step writers saw only 200, 409 and 503 with Retry-After, and gave up on no step',
        stepStatusesSeen.length === 0 && stepLog.errors.length === 0 && stepLog.gaveUp.length === 0,
        { statuses: stepLog.statuses, errors: stepLog.errors.slice(0, 5), gaveUp: stepLog.gaveUp.slice(0, 5) },
      ],
      [
        'every step an agent saw completed has exactly one succeeded attempt',
        steps.notOnce.length === 0,
        steps.notOnce.slice(0, 5),
      ],
      ["no step's body ran twice", steps.bodyRanTwice.length === 0, steps.bodyRanTwice.slice(0, 5)],
      ...redriveChecks,
      [
        'the server ran through all three without a restart',
        server.process.exitCode === null && server.process.signalCode === null,
        `exit ${server.process.exitCode}`,
      ],
      ['figures', true, figures.join('; ')],
    ]);
  } catch (error) {
    if (writers)
      log(`writers so far: ${JSON.stringify(writers.log.statuses)}; ${writers.log.errors.slice(0, 3).join(' | ')}`);
    if (server) log(`server stderr (tail): ${server.errors().slice(-2_000)}`);
    log(`Patroni (tail):\n${cluster.logs().slice(-3_000)}`);
    throw error;
  } finally {
    await writers?.stop();
    await stepWriters?.stop();
    await server?.stop().catch(() => {});
    await library?.close().catch(() => {});
    await cluster.stop();
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The current primary and standby. */
async function rolesOf(cluster: PatroniCluster): Promise<[PatroniNode, PatroniNode]> {
  let leader: PatroniNode | undefined;
  await waitFor('a primary', async () => (leader = await cluster.leader()) !== undefined, 60_000);
  const standby = cluster.nodes.find((node) => node !== leader)!;
  return [leader!, standby];
}
