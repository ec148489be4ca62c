import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import { type BeginStepInput, runStep } from '@holdfast/engine/core';
import { connectDatabase, type DatabaseConnection } from '@holdfast/engine/db';
import { openPostgres } from '@holdfast/engine/db';
import { type Figures, measureLoops } from './bench-compare';
import { httpPoster } from './bench-http';
import type { StepKind } from './dbos-side';

/**
 * The in-machine sides of `npm run bench:peers`: Holdfast's runStep, Holdfast over HTTP, and the bare-SQL
 * ceiling. Every side does the same work: a step whose body returns a small result and counts its runs; a new
 * step is a new task every call; a repeat calls one of a pool of steps completed beforehand, cycling through
 * it so that no two clients repeat the same step at once (a hot row would measure lock waits, not replays).
 */

export const STEP_RESULT = 'ok';
/** Completed steps each side repeats; far more than the clients, so concurrent repeats touch different rows. */
export const REPEAT_POOL = 64;

export interface SideRound {
  figures: Figures;
  /** Runs of the step body during the round: one per new step, none for a repeat. */
  bodyRuns: number;
}

export interface PeerSide {
  prepareRepeats: (count: number) => Promise<void>;
  measure: (kind: StepKind, clients: number, seconds: number) => Promise<SideRound>;
  stop: () => Promise<void>;
}

/** One pool per client count, kept across rounds: connections are opened during the discarded warm-up. */
function poolsBy<P>(open: (clients: number) => P, close: (pool: P) => Promise<void> | void) {
  const pools = new Map<number, P>();
  return {
    get: (clients: number) => {
      let pool = pools.get(clients);
      if (!pool) pools.set(clients, (pool = open(clients)));
      return pool;
    },
    closeAll: async () => {
      for (const pool of pools.values()) await close(pool);
    },
  };
}

/** Step inputs of one side: new task ids under a prefix the row counts select by, and a pool of repeats. */
function stepInputs(prefix: string) {
  const run = randomUUID().slice(0, 8);
  let sequence = 0;
  let cursor = 0;
  const input = (taskId: string, n: number): BeginStepInput => ({
    taskId,
    agent: 'bench',
    owner: 'team:bench',
    step: 'call_model',
    content: { n },
    estimatedCostMicros: 1_000,
  });
  let repeats: BeginStepInput[] = [];
  return {
    fresh: () => {
      sequence += 1;
      return input(`${prefix}${run}-${sequence}`, sequence);
    },
    makeRepeats: (count: number) => {
      repeats = Array.from({ length: count }, (_, index) => input(`${prefix}${run}-repeat-${index}`, index));
      return repeats;
    },
    nextRepeat: () => repeats[cursor++ % repeats.length]!,
  };
}

export const RUN_STEP_PREFIX = 'peers-rs-';
export const HTTP_PREFIX = 'peers-http-';

/** Holdfast's runStep in this process, on a pool as large as the clients. */
export function runStepSide(databaseUrl: string): PeerSide {
  const pools = poolsBy(
    (clients) => connectDatabase(databaseUrl, { maxConnections: clients }),
    (pool: DatabaseConnection) => pool.close(),
  );
  const inputs = stepInputs(RUN_STEP_PREFIX);
  let bodyRuns = 0;
  const body = async () => {
    bodyRuns += 1;
    return { result: STEP_RESULT, costMicros: 900 };
  };
  const step = async (db: DatabaseConnection['db'], input: BeginStepInput, expected: 'completed' | 'replayed') => {
    const outcome = await runStep({ db }, input, body);
    if (outcome.status !== expected || outcome.result !== STEP_RESULT) {
      throw new Error(`bench: runStep ended ${outcome.status}, expected ${expected}`);
    }
  };
  return {
    prepareRepeats: async (count) => {
      const { db } = pools.get(1);
      for (const input of inputs.makeRepeats(count)) await step(db, input, 'completed');
    },
    measure: async (kind, clients, seconds) => {
      const { db } = pools.get(clients);
      const before = bodyRuns;
      const figures = await measureLoops(clients, seconds, () =>
        kind === 'new' ? step(db, inputs.fresh(), 'completed') : step(db, inputs.nextRepeat(), 'replayed'),
      );
      return { figures, bodyRuns: bodyRuns - before };
    },
    stop: () => pools.closeAll(),
  };
}

/**
 * Holdfast over HTTP as an agent in another language uses it: POST /api/v1/steps/begin, run the body when
 * told to, POST /api/v1/steps/finish. A repeat is a begin that answers `replay` with the stored result.
 */
export function httpSide(baseUrl: string, token: string): PeerSide {
  const posters = poolsBy(
    (clients) => httpPoster(baseUrl, token, clients),
    (post) => post.close(),
  );
  const inputs = stepInputs(HTTP_PREFIX);
  let bodyRuns = 0;
  const step = async (post: ReturnType<typeof httpPoster>, input: BeginStepInput, expected: 'run' | 'replay') => {
    const begun = await post('/api/v1/steps/begin', input);
    if (begun.decision === 'replay' && expected === 'replay' && begun.result === STEP_RESULT) return;
    if (begun.decision !== 'run' || expected !== 'run') {
      throw new Error(`bench: begin answered ${String(begun.decision)}, expected ${expected}`);
    }
    bodyRuns += 1;
    const finished = await post('/api/v1/steps/finish', {
      key: begun.key,
      fencingToken: begun.fencingToken,
      attemptNumber: begun.attemptNumber,
      outcome: 'succeeded',
      result: STEP_RESULT,
      costMicros: 900,
    });
    if (finished.decision !== 'completed') throw new Error(`bench: finish answered ${String(finished.decision)}`);
  };
  return {
    prepareRepeats: async (count) => {
      const post = posters.get(1);
      for (const input of inputs.makeRepeats(count)) await step(post, input, 'run');
    },
    measure: async (kind, clients, seconds) => {
      const post = posters.get(clients);
      const before = bodyRuns;
      const figures = await measureLoops(clients, seconds, () =>
        kind === 'new' ? step(post, inputs.fresh(), 'run') : step(post, inputs.nextRepeat(), 'replay'),
      );
      return { figures, bodyRuns: bodyRuns - before };
    },
    stop: () => posters.closeAll(),
  };
}

export const BARE_TABLE = 'peers_bare_steps';

/**
 * The bare-SQL ceiling: the least durable work a step needs, through postgres.js with prepared statements and
 * each statement its own transaction: a primary-key select for a stored result (a repeat ends there: one round
 * trip, nothing committed), else the body and an insert of its result keyed by the step id, ON CONFLICT DO
 * NOTHING RETURNING (a racing twin that lost reads the winner's). No budget, attempt log, fencing or retry
 * accounting: what any durable step must pay.
 */
export async function bareSqlSide(databaseUrl: string): Promise<PeerSide> {
  const setup = openPostgres(databaseUrl, { max: 1, onnotice: () => {} });
  await setup.unsafe(
    `create table if not exists ${BARE_TABLE} (step_id text primary key, result jsonb not null, created_at timestamptz not null default now())`,
  );
  await setup.end({ timeout: 5 });
  const pools = poolsBy(
    (clients) => openPostgres(databaseUrl, { max: clients, onnotice: () => {} }),
    (sql: postgres.Sql) => sql.end({ timeout: 5 }),
  );
  const run = randomUUID().slice(0, 8);
  let sequence = 0;
  let cursor = 0;
  let repeats: string[] = [];
  let bodyRuns = 0;
  const step = async (sql: postgres.Sql, id: string) => {
    const result = await (async () => {
      const [stored] = await sql<{ result: unknown }[]>`select result from peers_bare_steps where step_id = ${id}`;
      if (stored) return stored.result;
      bodyRuns += 1;
      const value = STEP_RESULT;
      const [inserted] = await sql<{ result: unknown }[]>`
        insert into peers_bare_steps (step_id, result) values (${id}, ${sql.json(value)})
        on conflict do nothing returning result`;
      if (inserted) return inserted.result;
      const [winner] = await sql<{ result: unknown }[]>`select result from peers_bare_steps where step_id = ${id}`;
      return winner?.result;
    })();
    if (result !== STEP_RESULT) throw new Error(`bench: bare step ${id} returned ${String(result)}`);
  };
  return {
    prepareRepeats: async (count) => {
      repeats = Array.from({ length: count }, (_, index) => `${run}-repeat-${index}`);
      for (const id of repeats) await step(pools.get(1), id);
    },
    measure: async (kind, clients, seconds) => {
      const sql = pools.get(clients);
      const before = bodyRuns;
      const figures = await measureLoops(clients, seconds, () => {
        if (kind === 'repeat') return step(sql, repeats[cursor++ % repeats.length]!);
        sequence += 1;
        return step(sql, `${run}-${sequence}`);
      });
      return { figures, bodyRuns: bodyRuns - before };
    },
    stop: () => pools.closeAll(),
  };
}

/**
 * The empty route (POST /api/bench/empty, on with HOLDFAST_BENCH_EMPTY_ROUTE): what one request costs the
 * HTTP server and Next.js with nothing for Holdfast to do, measured with the same client and a body of a
 * begin's size. A step over HTTP is two requests, so half this rate is the most steps the route layer allows.
 */
export function emptyRouteSide(baseUrl: string, token: string) {
  const posters = poolsBy(
    (clients) => httpPoster(baseUrl, token, clients),
    (post) => post.close(),
  );
  const body = stepInputs(HTTP_PREFIX).fresh();
  return {
    measure: (clients: number, seconds: number) =>
      measureLoops(clients, seconds, () => posters.get(clients)('/api/bench/empty', body)),
    stop: () => posters.closeAll(),
  };
}
