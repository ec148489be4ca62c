import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { runStep as runStepOverHttp } from '@holdfast/client';
import {
  type BeginStepInput,
  type RecordAttemptInput,
  recordAttempt,
  runStep,
  StepError,
} from '../../../packages/engine/src/core';
import { retrySpendOf } from '../../../packages/engine/src/core/attempts/retry-spend';
import type { ErrorClass } from '../../../packages/engine/src/db/schema';
import { rollUpAttempts } from '../../../packages/engine/src/rollups/roll-up';
import { useApi } from '../../support/api-harness';
import { addKnownOwners } from '../../support/known-owners';

/**
 * Retry-attributable spend is the spend beyond what one try would have cost (packages/engine/src/core/attempts/retry-spend.ts),
 * the same on every path an attempt reaches Holdfast by: the step protocol in process and over HTTP, finished
 * attempts reported in process and over HTTP (in order, and the retry before its first attempt), and spans (the
 * attempt stated, or a call made again after a failed sibling). Then the rollups and the API's step figures.
 */
const api = useApi();
beforeAll(() => addKnownOwners(api.database.db, ['team:platform']));

interface Try {
  ends: 'ok' | ErrorClass;
  costMicros: number;
}

const examples: { name: string; tries: Try[]; retrySpend: number }[] = [
  {
    name: '429 ($0), 500 ($0), success ($0.0027)',
    tries: [
      { ends: 'rate_limited', costMicros: 0 },
      { ends: 'transient', costMicros: 0 },
      { ends: 'ok', costMicros: 2_700 },
    ],
    retrySpend: 0,
  },
  {
    name: 'invalid output ($0.003), success ($0.003)',
    tries: [
      { ends: 'invalid_output', costMicros: 3_000 },
      { ends: 'ok', costMicros: 3_000 },
    ],
    retrySpend: 3_000,
  },
  {
    name: 'timeout after a long generation ($0.010), success ($0.002)',
    tries: [
      { ends: 'timeout', costMicros: 10_000 },
      { ends: 'ok', costMicros: 2_000 },
    ],
    retrySpend: 10_000,
  },
  {
    name: 'three transient failures ($0.001 each), exhausted',
    tries: [
      { ends: 'transient', costMicros: 1_000 },
      { ends: 'transient', costMicros: 1_000 },
      { ends: 'transient', costMicros: 1_000 },
    ],
    retrySpend: 2_000,
  },
];

const endedOf = (tries: Try[]) =>
  tries.map((attempt) => ({
    outcome: attempt.ends === 'ok' ? ('succeeded' as const) : ('failed' as const),
    costMicros: attempt.costMicros,
  }));

/** Plays the tries through one path, for a task of its own; returns the task id. */
type Path = (tries: Try[], step: string) => Promise<string>;

function stepBody(attempt: Try) {
  return async () => {
    if (attempt.ends === 'ok') return { result: { done: true }, costMicros: attempt.costMicros };
    throw new StepError(attempt.ends, `${attempt.ends} from the provider`, {
      costMicros: attempt.costMicros,
      ...(attempt.ends === 'rate_limited' ? { retryAfterMs: 1_000 } : {}),
    });
  };
}

function stepProtocol(run: (input: BeginStepInput, attempt: Try) => Promise<unknown>): Path {
  return async (tries, step) => {
    const input: BeginStepInput = {
      taskId: `spend-${randomUUID()}`,
      agent: 'spend',
      owner: 'team:platform',
      step,
      content: { doc: 1 },
      retryAllowance: 2,
    };
    for (const attempt of tries) await run(input, attempt);
    return input.taskId;
  };
}

function reportsOf(tries: Try[], step: string, taskId: string): RecordAttemptInput[] {
  const start = Date.now() - 60_000;
  return tries.map((attempt, index) => ({
    taskId,
    agent: 'spend',
    step,
    attemptNumber: index + 1,
    startedAt: new Date(start + index * 5_000),
    finishedAt: new Date(start + index * 5_000 + 1_000),
    outcome: attempt.ends === 'ok' ? 'succeeded' : 'failed',
    ...(attempt.ends === 'ok' ? {} : { errorClass: attempt.ends, errorText: `${attempt.ends} from the provider` }),
    costMicros: attempt.costMicros,
  }));
}

function reported(send: (report: RecordAttemptInput) => Promise<unknown>, order: 'in order' | 'last first'): Path {
  return async (tries, step) => {
    const taskId = `spend-${randomUUID()}`;
    const reports = reportsOf(tries, step, taskId);
    for (const report of order === 'in order' ? reports : [...reports].reverse()) await send(report);
    return taskId;
  };
}

/** The tries as model-call spans of one parent: numbered by `holdfast.attempt`, or by their order after failures. */
function spans(stated: boolean): Path {
  return async (tries, step) => {
    const taskId = `spend-${randomUUID()}`;
    const traceId = randomBytes(16).toString('hex');
    const start = BigInt(Date.now() - 60_000) * 1_000_000n;
    const second = 1_000_000_000n;
    const exported = tries.map((attempt, index) => ({
      traceId,
      spanId: randomBytes(8).toString('hex'),
      name: 'chat gpt-test',
      startTimeUnixNano: String(start + BigInt(index) * 5n * second),
      endTimeUnixNano: String(start + BigInt(index) * 5n * second + second),
      attributes: [
        { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
        { key: 'gen_ai.request.model', value: { stringValue: 'gpt-test' } },
        { key: 'holdfast.task', value: { stringValue: taskId } },
        { key: 'holdfast.step', value: { stringValue: step } },
        { key: 'gen_ai.usage.cost.amount', value: { doubleValue: attempt.costMicros / 1_000_000 } },
        ...(stated ? [{ key: 'holdfast.attempt', value: { intValue: String(index + 1) } }] : []),
        ...(attempt.ends === 'ok' ? [] : [{ key: 'error.type', value: { stringValue: attempt.ends } }]),
      ],
      status: attempt.ends === 'ok' ? { code: 1 } : { code: 2, message: `${attempt.ends} from the provider` },
    }));
    const answer = await api.request('/v1/traces', {
      body: {
        resourceSpans: [
          {
            resource: { attributes: [{ key: 'service.name', value: { stringValue: 'spend' } }] },
            scopeSpans: [{ spans: exported }],
          },
        ],
      },
    });
    expect(answer).toMatchObject({ status: 200, body: {} });
    return taskId;
  };
}

const paths: { name: string; play: Path }[] = [
  {
    name: 'step protocol, in process',
    play: stepProtocol((input, a) => runStep({ db: api.database.db }, input, stepBody(a))),
  },
  {
    name: 'step protocol, over HTTP',
    play: stepProtocol((input, a) => runStepOverHttp(api.client(), input, stepBody(a))),
  },
  { name: 'reported in process', play: reported((r) => recordAttempt({ db: api.database.db }, r), 'in order') },
  {
    name: 'reported in process, last first',
    play: reported((r) => recordAttempt({ db: api.database.db }, r), 'last first'),
  },
  { name: 'reported over HTTP', play: reported((r) => api.client().recordAttempt(r), 'in order') },
  { name: 'reported over HTTP, last first', play: reported((r) => api.client().recordAttempt(r), 'last first') },
  { name: 'spans stating their attempt', play: spans(true) },
  { name: 'spans, a call made again after a failure', play: spans(false) },
];

async function storedOf(taskId: string) {
  const [row] = await api.database.sql<{ attempts: number; spend: string; retry_spend: string }[]>`
    select count(*)::int as attempts, coalesce(sum(cost_micros), 0)::text as spend,
      coalesce(sum(retry_cost_micros), 0)::text as retry_spend
    from attempts where task_id = ${taskId}`;
  return { attempts: row!.attempts, spend: Number(row!.spend), retrySpend: Number(row!.retry_spend) };
}

describe('retry spend is the spend beyond one try, on every path', () => {
  it.each(examples)('the definition: $name', ({ tries, retrySpend }) => {
    expect(retrySpendOf(endedOf(tries))).toBe(retrySpend);
  });

  describe.each(paths)('$name', ({ name, play }) => {
    it.each(examples)('$name', async ({ tries, retrySpend }) => {
      const taskId = await play(tries, 'answer');
      const spend = tries.reduce((sum, attempt) => sum + attempt.costMicros, 0);
      expect({ path: name, ...(await storedOf(taskId)) }).toEqual({
        path: name,
        attempts: tries.length,
        spend,
        retrySpend,
      });
    });
  });

  it('a first attempt and its succeeded retry reported at the same instant, on two connections: counted once', async () => {
    const tries: Try[] = [
      { ends: 'invalid_output', costMicros: 3_000 },
      { ends: 'ok', costMicros: 1_000 },
    ];
    const taskIds = Array.from({ length: 80 }, () => `race-${randomUUID()}`);
    // Each task is stored first (by a report of another step), so the two reports wait on nothing but each other.
    for (const taskId of taskIds)
      await recordAttempt({ db: api.database.db }, reportsOf([tries[1]!], 'earlier', taskId)[0]!);
    await Promise.all(
      taskIds.flatMap((taskId) =>
        reportsOf(tries, 'race', taskId).map((report) => recordAttempt({ db: api.database.db }, report)),
      ),
    );
    const stored = await Promise.all(taskIds.map(storedOf));
    expect(stored.filter((row) => row.retrySpend !== 3_000)).toEqual([]);
  });

  it('the rollups and the API read the same figure: each path plays all four under a step of its own', async () => {
    const expected = examples.reduce((sum, example) => sum + example.retrySpend, 0);
    for (const [index, path] of paths.entries())
      for (const example of examples) await path.play(example.tries, `rolled-${index}`);
    const now = new Date();
    await rollUpAttempts(api.database.db, { now, retentionFloor: new Date(now.getTime() - 7 * 86_400_000) });
    const answer = await api.request('/api/v1/step-stats?window=24h', { method: 'GET', token: api.readToken });
    expect(answer.status).toBe(200);
    const steps = answer.body.steps as { agent: string; step: string; retrySpendMicros: number }[];
    const rolled = paths.map((_, index) =>
      steps.find((row) => row.agent === 'spend' && row.step === `rolled-${index}`),
    );
    expect(rolled.map((row) => row?.retrySpendMicros)).toEqual(paths.map(() => expected));
  });
});
