import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { runStep, type BeginStepInput } from '../../lib/core';
import { connectDatabase } from '../../lib/db/client';

/**
 * One step, begun and finished, as many times as fit in `seconds`, from
 * `connections` concurrent workers: in-process through runStep, or over
 * HTTP through POST /api/v1/steps/begin and /finish (two requests a step, as
 * an agent in another language makes them). Every step is a new task, so
 * each one claims a key, reserves spend, records an attempt and settles all
 * three. Returns steps per second and the p95 of one step's latency.
 */
export interface StepFigures {
  perSecond: number;
  p95Ms: number;
}

let sequence = 0;
function stepInput(run: string): BeginStepInput {
  sequence += 1;
  return { taskId: `bench-step-${run}-${sequence}`, agent: 'bench', owner: 'team:bench', step: 'call_model', content: { n: sequence }, estimatedCostMicros: 1_000 };
}

async function measure(connections: number, seconds: number, oneStep: () => Promise<void>): Promise<StepFigures> {
  const latencies: number[] = [];
  const began = performance.now();
  const deadline = began + seconds * 1_000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) {
        const start = performance.now();
        await oneStep();
        latencies.push(performance.now() - start);
      }
    }),
  );
  const elapsed = (performance.now() - began) / 1_000;
  latencies.sort((a, b) => a - b);
  return { perSecond: latencies.length / elapsed, p95Ms: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.95))] ?? 0 };
}

export async function stepsInProcess(databaseUrl: string, connections: number, seconds: number): Promise<StepFigures> {
  const connection = connectDatabase(databaseUrl, { maxConnections: connections });
  const run = randomUUID().slice(0, 8);
  try {
    return await measure(connections, seconds, async () => {
      const outcome = await runStep({ db: connection.db }, stepInput(run), async () => ({ result: 'ok', costMicros: 900 }));
      if (outcome.status !== 'completed') throw new Error(`bench: in-process step ended ${outcome.status}`);
    });
  } finally {
    await connection.close();
  }
}

/**
 * A light load generator: node's http client on kept-alive sockets, one per
 * worker (fetch costs the client about a millisecond more per request on this
 * machine, which is the generator's cost, not the API's).
 */
function httpPoster(baseUrl: string, token: string, connections: number) {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  return (path: string, body: unknown) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const data = JSON.stringify(body);
      const request = http.request(
        {
          host: url.hostname, port: url.port, path, method: 'POST', agent,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => {
            const answer = JSON.parse(text) as Record<string, unknown>;
            if (response.statusCode !== 200) reject(new Error(`bench: ${path} answered ${response.statusCode} ${text}`));
            else resolve(answer);
          });
        },
      );
      request.on('error', reject);
      request.end(data);
    });
}

export async function stepsOverHttp(baseUrl: string, token: string, connections: number, seconds: number): Promise<StepFigures> {
  const run = randomUUID().slice(0, 8);
  const post = httpPoster(baseUrl, token, connections);
  return measure(connections, seconds, async () => {
    const begun = await post('/api/v1/steps/begin', stepInput(run));
    if (begun.decision !== 'run') throw new Error(`bench: begin answered ${String(begun.decision)}`);
    await post('/api/v1/steps/finish', { key: begun.key, fencingToken: begun.fencingToken, attemptNumber: begun.attemptNumber, outcome: 'succeeded', result: 'ok', costMicros: 900 });
  });
}
