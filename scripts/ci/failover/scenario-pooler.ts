import { createApiToken } from '@holdfast/engine/core';
import { connectDatabase } from '@holdfast/engine/db';
import { migrateDatabase } from '@holdfast/engine/db';
import { runChecks, type Check } from '../faults/checks';
import { startHoldfastServer, type HoldfastServer } from '../faults/holdfast-server';
import { runClaimRace } from './claim-race';
import { startKeyedWriters } from './keyed-writers';
import { startPgBouncer } from './pgbouncer';
import { otherPort, postgresPort } from './ports';
import { startPostgres15 } from './postgres-15';
import { waitFor } from './process-groups';
import { refusedStart } from './refused-start';
import { batchesNotStoredOnce } from './stored-once';

const INSTANCES = 4;
const WRITERS = 8;
const SERVER_POOL = 10;
const MAX_CONNECTIONS = 30;
const admin = { type: 'person' as const, id: 'failover-suite@holdfast.local', role: 'admin' as const, teams: [] };

/**
 * Four production servers through one PgBouncer (transaction mode, 10 server
 * connections) to one PostgreSQL 15 with max_connections 30: 40 application
 * connections share 10. Keyed writers post batches to two instances at once
 * while rounds of the 64-way claim race run. Checked: exactly one winner per
 * round, every acknowledged batch stored once, no answer but 200/409, and
 * PostgreSQL never saw more than the pool's connections plus the instances'
 * lock connections. And: an instance pointed at the pooler without
 * prepare=false refuses to start, with one line naming it.
 */
export async function poolerScenario(folder: string, log: (line: string) => void): Promise<Check[]> {
  const postgres = await startPostgres15(folder, await postgresPort(), { max_connections: MAX_CONNECTIONS });
  const servers: HoldfastServer[] = [];
  try {
    const bouncer = await startPgBouncer({
      folder,
      port: await otherPort(),
      upstream: { host: '127.0.0.1', port: postgres.port },
      poolSize: SERVER_POOL,
    });
    await migrateDatabase(postgres.url());
    const library = connectDatabase(postgres.url(), { maxConnections: 2 });
    try {
      const { token } = await createApiToken(
        { db: library.db, actor: admin },
        { name: 'pooler-writers', scopes: ['ingest'], ratePerSecond: 100_000, rateBurst: 1_000_000 },
      );
      const pooledUrl = `${bouncer.url('postgres')}?prepare=false`;
      const refusal = refusedStart(bouncer.url('postgres'), 6599, 'prepare=false');
      log(`an instance on the pooler without prepare=false: ${refusal.line}`);

      const started = Date.now();
      servers.push(
        ...(await Promise.all(
          Array.from({ length: INSTANCES }, async () =>
            startHoldfastServer(pooledUrl, await otherPort(), 120_000, { DATABASE_SESSION_URL: postgres.url() }),
          ),
        )),
      );
      const urls = servers.map((server) => server.baseUrl);
      log(`${INSTANCES} instances through PgBouncer (pool ${SERVER_POOL}) ready in ${Date.now() - started} ms`);

      let peakBackends = 0;
      const sampling = setInterval(() => {
        void library.sql<{ backends: number }[]>`
          select count(*)::int as backends from pg_stat_activity where backend_type = 'client backend'`.then(
          ([row]) => (peakBackends = Math.max(peakBackends, row?.backends ?? 0)),
          () => {},
        );
      }, 200);
      const writers = startKeyedWriters(urls, token, WRITERS, 'pool');
      let race: Awaited<ReturnType<typeof runClaimRace>>;
      try {
        await waitFor('the writers to get going', () => writers.log.acked.length >= 16, 60_000);
        race = await runClaimRace(urls, token, { rounds: 10, claimants: 64, prefix: 'pool' });
        await waitFor('more batches under the race', () => writers.log.acked.length >= 48, 60_000);
      } catch (error) {
        log(`writers so far: ${JSON.stringify(writers.log.statuses)}; ${writers.log.errors.slice(0, 3).join(' | ')}`);
        for (const server of servers) {
          const { exitCode, signalCode } = server.process;
          const state = exitCode === null && signalCode === null ? 'running' : `exited (${exitCode ?? signalCode})`;
          log(`server ${server.baseUrl} ${state}; stderr (tail): ${server.errors().slice(-1_500)}`);
        }
        throw error;
      } finally {
        await writers.stop();
        clearInterval(sampling);
      }
      const stored = await batchesNotStoredOnce(library.db, writers.log, 'pool');
      // 409: the other copy of the same batch is being answered right now (the copy retries and gets the same answer).
      const badStatuses = Object.keys(writers.log.statuses).filter((status) => status !== '200' && status !== '409');
      log(
        `writers: ${writers.log.acked.length} batches acknowledged (each sent to two instances), statuses ${JSON.stringify(writers.log.statuses)}, ${writers.log.inProgressAt.length} 409s, ${writers.log.unavailableAt.length} 503s; claim race: ${race.rounds} rounds of 64; peak PostgreSQL client backends ${peakBackends}`,
      );
      return runChecks('behind PgBouncer (transaction mode)', [
        ['an instance without prepare=false refuses to start, naming it', refusal.ok, refusal.line],
        ['the claim race had exactly one winner per round', race.wrongWinners.length === 0, race.wrongWinners],
        [
          'the claim race saw only 200 acquired and 409 in progress',
          race.otherAnswers.length === 0,
          race.otherAnswers.slice(0, 5),
        ],
        ['every acknowledged batch is stored exactly once', stored.notOnce.length === 0, stored.notOnce.slice(0, 5)],
        ['no batch stored that no writer was told about', stored.unexplained.length === 0, stored.unexplained],
        ['the writers gave up on no batch', writers.log.gaveUp.length === 0, writers.log.gaveUp],
        [
          'the writers saw only 200 and 409 (no error, 503 or network failure)',
          badStatuses.length === 0 && writers.log.errors.length === 0,
          { statuses: writers.log.statuses, errors: writers.log.errors.slice(0, 3) },
        ],
        [
          `PostgreSQL saw at most ${SERVER_POOL} pooled + ${INSTANCES} lock connections + 2 of the suite's`,
          peakBackends <= SERVER_POOL + INSTANCES + 2,
          `peak ${peakBackends}`,
        ],
      ]);
    } finally {
      await Promise.allSettled(servers.map((server) => server.stop()));
      await library.close();
      await bouncer.stop();
    }
  } finally {
    await postgres.stop();
  }
}
