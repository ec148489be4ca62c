import { randomUUID } from 'node:crypto';
import { runStep, type BeginStepInput } from '@holdfast/engine/core';
import { connectDatabase } from '@holdfast/engine/db';
import { measureLoops, type Figures } from './bench-compare';
import { httpPoster } from './bench-http';

/**
 * One step, begun and finished, as many times as fit in `seconds`, from
 * `connections` concurrent workers: in-process through runStep, or over
 * HTTP through POST /api/v1/steps/begin and /finish (two requests a step, as
 * an agent in another language makes them). Every step is a new task, so
 * each one claims a key, reserves spend, records an attempt and settles all
 * three. Returns steps per second and one step's latency.
 */
export type StepFigures = Figures;

let sequence = 0;
function stepInput(run: string): BeginStepInput {
  sequence += 1;
  return {
    taskId: `bench-step-${run}-${sequence}`,
    agent: 'bench',
    owner: 'team:bench',
    step: 'call_model',
    content: { n: sequence },
    estimatedCostMicros: 1_000,
  };
}

export async function stepsInProcess(databaseUrl: string, connections: number, seconds: number): Promise<StepFigures> {
  const connection = connectDatabase(databaseUrl, { maxConnections: connections });
  const run = randomUUID().slice(0, 8);
  try {
    return await measureLoops(connections, seconds, async () => {
      const outcome = await runStep({ db: connection.db }, stepInput(run), async () => ({
        result: 'ok',
        costMicros: 900,
      }));
      if (outcome.status !== 'completed') throw new Error(`bench: in-process step ended ${outcome.status}`);
    });
  } finally {
    await connection.close();
  }
}

export async function stepsOverHttp(
  baseUrl: string,
  token: string,
  connections: number,
  seconds: number,
): Promise<StepFigures> {
  const run = randomUUID().slice(0, 8);
  const post = httpPoster(baseUrl, token, connections);
  try {
    return await measureLoops(connections, seconds, async () => {
      const begun = await post('/api/v1/steps/begin', stepInput(run));
      if (begun.decision !== 'run') throw new Error(`bench: begin answered ${String(begun.decision)}`);
      await post('/api/v1/steps/finish', {
        key: begun.key,
        fencingToken: begun.fencingToken,
        attemptNumber: begun.attemptNumber,
        outcome: 'succeeded',
        result: 'ok',
        costMicros: 900,
      });
    });
  } finally {
    post.close();
  }
}
