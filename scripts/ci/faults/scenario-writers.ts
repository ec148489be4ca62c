import { sql } from 'drizzle-orm';
import type { Database } from '@holdfast/engine/db';
import { runChecks, type Check } from './checks';
import type { HoldfastServer } from './holdfast-server';
import { waitFor, type KillablePostgres } from './killable-postgres';
import { ATTEMPTS_PER_BATCH, newWriterLog, runWriter } from './writers';

const WRITERS = 4;
const OUTAGE_MS = 3_000;

interface Setup {
  postgres: KillablePostgres;
  server: HoldfastServer;
  db: Database;
  ingest: string;
  read: string;
  log: (line: string) => void;
}

/** What an endpoint answers right now: status, code, Retry-After. */
async function probe(url: string, token?: string) {
  const response = await fetch(url, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
    signal: AbortSignal.timeout(15_000),
  }); // longer than the server's own 10 s deadline
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  return {
    status: response.status,
    code: body.code,
    retryable: body.retryable,
    down: body.down,
    retryAfter: response.headers.get('retry-after'),
  };
}

/**
 * Writers post batches; PostgreSQL is killed with requests in flight, stays
 * down for a few seconds, and comes back on the same port. Then every
 * acknowledged batch must be in the log exactly once.
 */
export async function outageUnderWriters({ postgres, server, db, ingest, read, log }: Setup): Promise<Check[]> {
  const writerLog = newWriterLog();
  let writing = true;
  const writers = Array.from({ length: WRITERS }, (_, writer) =>
    runWriter(server.baseUrl, ingest, writer, () => writing, writerLog),
  );
  try {
    await waitFor(() => writerLog.acked.length >= 8, 30_000, 'the writers to get going');
    log(`writers: ${writerLog.acked.length} batches acknowledged; killing PostgreSQL (SIGKILL)`);
    const killedAt = Date.now();
    await postgres.kill();
    const [health, stepStats] = [
      await probe(`${server.baseUrl}/api/health`),
      await probe(`${server.baseUrl}/api/v1/step-stats?window=24h`, read),
    ];
    await waitFor(() => writerLog.unavailableAt.some((at) => at > killedAt), 10_000, 'a writer to be told 503');
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - killedAt))));
    await postgres.start();
    const restartedAt = Date.now();
    const ackedBefore = writerLog.acked.length;
    log(`PostgreSQL is back after ${((restartedAt - killedAt) / 1000).toFixed(1)} s; letting the writers catch up`);
    await waitFor(
      () => writerLog.acked.length >= ackedBefore + 3 * WRITERS,
      30_000,
      'the writers to be acknowledged again',
    );
    const firstAckAfter = Math.min(...writerLog.ackedAt.filter((at) => at > restartedAt)) - restartedAt;
    let healthAfter = await probe(`${server.baseUrl}/api/health`);
    const healthDeadline = Date.now() + 5_000;
    while (healthAfter.status !== 200 && Date.now() < healthDeadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      healthAfter = await probe(`${server.baseUrl}/api/health`);
    }
    writing = false;
    await Promise.all(writers);

    const rows = await db.execute<{ batch: string; rows: number }>(sql`
      select split_part(task_id, '#', 1) as batch, count(*)::int as rows from attempts where agent = 'fault-writer' group by 1`);
    const rowsByBatch = new Map(rows.map((row) => [row.batch, row.rows]));
    const notOnce = writerLog.acked.filter((batch) => rowsByBatch.get(batch) !== ATTEMPTS_PER_BATCH);
    const unacknowledgedInLog = [...rowsByBatch.keys()].filter(
      (batch) => !writerLog.acked.includes(batch) && !writerLog.gaveUp.includes(batch),
    );
    const lateInProgress = writerLog.inProgressAt.filter((at) => at > restartedAt + 2_000).length;
    log(
      `writers: first acknowledgement ${firstAckAfter} ms after recovery; ${writerLog.acked.length} acknowledged, ${writerLog.gaveUp.length} given up; statuses ${JSON.stringify(writerLog.statuses)}`,
    );

    return runChecks('writers through an outage', [
      ['saw 503 while PostgreSQL was down', writerLog.unavailableAt.length > 0, writerLog.statuses],
      ['never saw a 500 or another 5xx', writerLog.errors.length === 0, writerLog.errors.slice(0, 5)],
      ['gave up on no batch', writerLog.gaveUp.length === 0, writerLog.gaveUp],
      [
        `every acknowledged batch is in the log exactly once (${ATTEMPTS_PER_BATCH} rows each)`,
        notOnce.length === 0,
        notOnce.map((batch) => `${batch}: ${rowsByBatch.get(batch) ?? 0}`),
      ],
      ['no batch in the log that no writer sent', unacknowledgedInLog.length === 0, unacknowledgedInLog],
      [
        'no Idempotency-Key was refused as in progress 2 s after recovery',
        lateInProgress === 0,
        `${lateInProgress} late 409s`,
      ],
      ['were acknowledged again within 15 s of recovery', firstAckAfter < 15_000, `${firstAckAfter} ms`],
      [
        'health said 503, database down, with Retry-After, during the outage',
        health.status === 503 &&
          Array.isArray(health.down) &&
          health.down.includes('database') &&
          health.retryAfter !== null,
        health,
      ],
      [
        'a read endpoint said 503 DATABASE_UNAVAILABLE, retryable, with Retry-After',
        stepStats.status === 503 &&
          stepStats.code === 'DATABASE_UNAVAILABLE' &&
          stepStats.retryable === true &&
          stepStats.retryAfter !== null,
        stepStats,
      ],
      ['health said 200 within 5 s of recovery', healthAfter.status === 200, healthAfter],
    ]);
  } finally {
    writing = false;
    await Promise.allSettled(writers);
  }
}
