import { randomUUID } from 'node:crypto';
import {
  InvalidInputError,
  recordAttempt,
  recordAttemptInput,
  type Actor,
  type RecordAttemptInput,
} from '@holdfast/engine/core';
import type { Database } from '@holdfast/engine/db';
import { measureLoops, type Figures } from './bench-compare';
import { httpPoster } from './bench-http';

/**
 * Attempts recorded as many times as fit in `seconds` from `connections`
 * concurrent workers, one report a call or a batch a call, either over HTTP
 * (POST /api/v1/attempts, POST /api/v1/attempts/batch) or in-process doing
 * the same work the route handlers do, with the same token's actor. Rates
 * count attempts; latencies are per call (per batch for batches).
 */
export const BATCH_SIZE = 100;

let sequence = 0;
/** A fresh attempt report each call: every call records new rows. */
function report(run: string): RecordAttemptInput {
  sequence += 1;
  const finishedAt = new Date();
  return {
    taskId: `bench-${run}-${sequence}`,
    agent: 'bench',
    step: 'ingest',
    attemptNumber: 1,
    startedAt: new Date(finishedAt.getTime() - 250).toISOString(),
    finishedAt: finishedAt.toISOString(),
    outcome: 'succeeded',
    costMicros: 1_000,
  };
}

const reports = (run: string) => Array.from({ length: BATCH_SIZE }, () => report(run));

/**
 * What POST /api/v1/attempts/batch does once its body is parsed
 * (app/api/v1/attempts/batch/route.ts): every item validated first, then all
 * recorded in one transaction. The route's renaming of errors per item is
 * left out: a benchmark's batch never fails.
 */
async function recordBatch(db: Database, actor: Actor, attempts: RecordAttemptInput[]): Promise<void> {
  for (const item of attempts)
    if (!recordAttemptInput.safeParse(item).success)
      throw new InvalidInputError('bench: an invalid report in the batch', {});
  await db.transaction(async (tx) => {
    for (const item of attempts) await recordAttempt({ db: tx, actor }, item);
  });
}

export function attemptsInProcess(
  db: Database,
  actor: Actor,
  connections: number,
  batched: boolean,
  seconds: number,
): Promise<Figures> {
  const run = randomUUID().slice(0, 8);
  return batched
    ? measureLoops(connections, seconds, () => recordBatch(db, actor, reports(run)), BATCH_SIZE)
    : measureLoops(connections, seconds, () => recordAttempt({ db, actor }, report(run)));
}

export async function attemptsOverHttp(
  baseUrl: string,
  token: string,
  connections: number,
  batched: boolean,
  seconds: number,
): Promise<Figures> {
  const run = randomUUID().slice(0, 8);
  const post = httpPoster(baseUrl, token, connections);
  try {
    return batched
      ? await measureLoops(
          connections,
          seconds,
          () => post('/api/v1/attempts/batch', { attempts: reports(run) }),
          BATCH_SIZE,
        )
      : await measureLoops(connections, seconds, () => post('/api/v1/attempts', report(run)));
  } finally {
    post.close();
  }
}
