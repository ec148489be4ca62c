import { sql } from 'drizzle-orm';
import type { Database } from '@holdfast/engine/db';
import { startWriterLoops } from './writer-loops';
import { networkStatus } from '../faults/writers';

/**
 * Agents on the step protocol over HTTP through a failover: each writer runs new steps one after another
 * (POST /api/v1/steps/begin, the step's body when told `run`, POST /api/v1/steps/finish), every call tried
 * again on 503 and on "in progress" (409 with Retry-After) as an agent does. A begin whose answer was lost
 * leaves its attempt running: a short in-progress time lets the next begin take over, so no step waits long.
 *
 * The log counts every status and each time a step's body ran, so the suite can check that a body ran at
 * most once per step, that every step the agent saw completed has exactly one succeeded attempt, and that
 * nothing but 200, 409 and 503 came back.
 */
export interface StepWriterLog {
  /** Steps whose finish answered `completed` (by task id). */
  completed: string[];
  completedAt: number[];
  /** How many times each task's body ran (the side effect a step guards). */
  bodyRuns: Map<string, number>;
  /** Steps given up on (a deadline passed, or an answer that was neither run, replay, wait nor completed). */
  gaveUp: string[];
  statuses: Record<string, number>;
  errors: string[];
}

export interface StepWriters {
  log: StepWriterLog;
  stop(): Promise<void>;
}

const STEP = 'charge_card';
const AGENT = 'failover-steps';
/** A begin whose answer never came leaves a running attempt; after this a redelivered begin may take over. */
const IN_PROGRESS_TTL_MS = 3_000;
/** Past this, one step is given up on (the switch itself takes at most about 12 s here). */
const STEP_DEADLINE_MS = 60_000;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function startStepWriters(baseUrl: string, token: string, writers: number, prefix: string): StepWriters {
  const log: StepWriterLog = {
    completed: [],
    completedAt: [],
    bodyRuns: new Map(),
    gaveUp: [],
    statuses: {},
    errors: [],
  };
  /** One call, tried again on 503 and 409 until it gets another answer or the deadline passes. */
  const call = async (path: string, body: unknown, deadline: number): Promise<Record<string, unknown> | undefined> => {
    while (Date.now() < deadline) {
      let status: string;
      let retryAfterMs = 200;
      try {
        const response = await fetch(`${baseUrl}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(20_000),
        });
        status = String(response.status);
        const text = await response.text();
        if (response.status >= 500 && response.status !== 503)
          log.errors.push(`${path}: ${status} ${text.slice(0, 300)}`);
        if (response.status === 503 && response.headers.get('retry-after') === null)
          log.errors.push(`${path}: 503 without Retry-After`);
        if (response.status === 200) {
          log.statuses[status] = (log.statuses[status] ?? 0) + 1;
          return JSON.parse(text) as Record<string, unknown>;
        }
        if (response.status === 409) {
          const answer = JSON.parse(text) as { retryable?: boolean; retryAfterMs?: number };
          if (answer.retryable !== true) {
            log.statuses[status] = (log.statuses[status] ?? 0) + 1;
            log.errors.push(`${path}: a stop ${text.slice(0, 300)}`);
            return undefined;
          }
          retryAfterMs = Math.min(answer.retryAfterMs ?? 250, 500);
        } else if (response.status !== 503) {
          log.statuses[status] = (log.statuses[status] ?? 0) + 1;
          log.errors.push(`${path}: unexpected ${status} ${text.slice(0, 300)}`);
          return undefined;
        }
      } catch (error) {
        status = networkStatus(error);
      }
      log.statuses[status] = (log.statuses[status] ?? 0) + 1;
      await pause(retryAfterMs);
    }
    return undefined;
  };

  const runStep = async (taskId: string): Promise<boolean> => {
    const deadline = Date.now() + STEP_DEADLINE_MS;
    const begin = {
      taskId,
      agent: AGENT,
      owner: 'team:payments',
      step: STEP,
      content: { taskId },
      inProgressTtlMs: IN_PROGRESS_TTL_MS,
      estimatedCostMicros: 1_000,
    };
    for (;;) {
      const begun = await call('/api/v1/steps/begin', begin, deadline);
      if (!begun) return false;
      // Completed before (its finish's answer was lost): nothing to do again.
      if (begun.decision === 'replay') return true;
      if (begun.decision !== 'run') return false;
      log.bodyRuns.set(taskId, (log.bodyRuns.get(taskId) ?? 0) + 1);
      const finished = await call(
        '/api/v1/steps/finish',
        {
          key: begun.key,
          fencingToken: begun.fencingToken,
          attemptNumber: begun.attemptNumber,
          outcome: 'succeeded',
          result: { charged: taskId },
          costMicros: 900,
        },
        deadline,
      );
      if (finished?.decision === 'completed') return true;
      // Taken over meanwhile (this attempt's time ran out while the database was away): begin again, which
      // replays the other attempt's result or runs the step once more.
      if (!finished) return false;
    }
  };

  const loops = startWriterLoops(
    writers,
    async (writer, step) => {
      const taskId = `${prefix}-w${writer}-s${step}`;
      return { id: taskId, acknowledged: await runStep(taskId) };
    },
    { acknowledged: log.completed, acknowledgedAt: log.completedAt, gaveUp: log.gaveUp },
  );
  return { log, stop: () => loops.stop() };
}

/**
 * Steps the writers saw completed whose task does not have exactly one succeeded attempt of the step, and
 * steps whose body ran more than once without a lost answer to explain it (a body runs again only after its
 * attempt's in-progress time ran out, which the database's absence can cause: those are counted apart).
 */
export async function stepsNotCompletedOnce(db: Database, log: StepWriterLog) {
  const rows = await db.execute<{ task_id: string; succeeded: number }>(sql`
    select t.task_id, count(a.*) filter (where a.outcome = 'succeeded')::int as succeeded
    from unnest(${`{${log.completed.join(',')}}`}::text[]) as t(task_id)
    left join attempts a on a.task_id = t.task_id and a.step = ${STEP}
    group by t.task_id`);
  return {
    notOnce: rows.filter((row) => row.succeeded !== 1).map((row) => `${row.task_id}: ${row.succeeded} succeeded`),
    bodyRanTwice: [...log.bodyRuns].filter(([, runs]) => runs > 1).map(([task]) => task),
  };
}
