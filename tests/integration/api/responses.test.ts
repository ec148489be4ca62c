import { randomUUID } from 'node:crypto';
import { NextRequest } from 'next/server';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { endpoints, type EndpointName } from '@holdfast/protocol/api/endpoints';
import {
  endpointResponses,
  problemDocument,
  restatedEnums,
  spendBudgetsResponse,
  stepStatsResponse,
} from '@holdfast/protocol/api/responses';
import { ensureTaskBudget, redriveDeadLetter, saveSpendBudget } from '../../../packages/engine/src/core';
import * as tables from '../../../packages/engine/src/db/schema';
import { useApi } from '../../support/api-harness';
import { admin, oncall } from '../../support/actors';
import { aDeadLetterInput } from '../../support/dead-letter-input';
import { attemptOf } from '../../support/step-input';

/**
 * The response contract: every endpoint's real success answers parse with its
 * schema in packages/protocol/src/api/responses.ts (strict objects: a field added, dropped or
 * renamed fails), and the OpenAPI document describes each success response
 * with a real schema rather than `{ type: object }`.
 */

const api = useApi();

// Made before any report of this file: the server under test is another instance than the one saving the budget,
// and an instance asks whether the fleet has budgets at most every 5 s.
beforeAll(async () => {
  await saveSpendBudget(
    { db: api.database.db, actor: admin },
    {
      name: 'contract budget',
      scope: 'agent',
      scopeValue: 'contract-budgeted',
      period: 'day',
      limitUsd: 1,
      reason: 'test',
    },
  );
});
const unique = (prefix: string) => `${prefix}-${randomUUID()}`;

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

const post = (name: EndpointName, body: unknown): Promise<Answer> => api.request(endpoints[name].path, { body });

/** GET /api/v1/step-stats with a read token, called in-process like the harness's routes (it does not load this one). */
async function getStepStats(query: string): Promise<Answer> {
  const { GET } = await import('../../../app/api/v1/step-stats/route');
  const response = await GET(
    new NextRequest(`http://holdfast.test/api/v1/step-stats${query}`, {
      headers: { authorization: `Bearer ${api.readToken}` },
    }),
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Calls an endpoint that must succeed, for a case's setup. */
async function call(name: EndpointName, body: unknown): Promise<Record<string, unknown>> {
  const answer = await post(name, body);
  if (answer.status >= 300) throw new Error(`${name} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

const anAttempt = (overrides: Record<string, unknown> = {}) => ({
  taskId: unique('contract'),
  agent: 'contract-agent',
  step: 'fetch',
  attemptNumber: 1,
  startedAt: new Date(Date.now() - 1_500).toISOString(),
  finishedAt: new Date().toISOString(),
  outcome: 'succeeded',
  costMicros: 1_200,
  ...overrides,
});

const aStep = (taskId = unique('contract-task')) => ({
  taskId,
  agent: 'contract-agent',
  owner: 'team:contract',
  step: 'draft',
  content: { topic: 'tides' },
});

async function claimedKey() {
  const key = unique('contract-key');
  const claim = await call('claimKey', { key, requestHash: 'h' });
  return { key, fencingToken: claim.fencingToken as number };
}

async function acquiredSlot() {
  const slot = unique('contract-slot');
  const runKey = unique('contract-run');
  const lock = await call('acquireSlot', { slot, runKey, ttlMs: 60_000 });
  return { slot, runKey, fencingToken: lock.fencingToken as number };
}

/** A redrive waiting on a queue of its own, so a claim takes exactly it. */
async function dueRedrive() {
  const queue = unique('contract-queue');
  const { deadLetter } = await call('deadLetter', {
    taskId: unique('contract-dl'),
    agent: 'contract-agent',
    step: 'send',
    queue,
    payload: { to: 'a@example.com' },
    reason: 'retry_ceiling',
    errorClass: 'transient',
    lastError: '451 try later',
    attempts: 3,
    spendMicros: 900,
    owner: 'team:contract',
  });
  await redriveDeadLetter(
    { db: api.database.db, actor: oncall },
    { deadLetterId: (deadLetter as { id: number }).id, reason: 'contract test' },
  );
  return queue;
}

/**
 * Valid calls per endpoint and their real answers, every success shape
 * included (201 and 200; both outcomes of a union). Typed over every
 * endpoint, and the loop below checks at run time too: a new endpoint needs a case.
 */
const cases: { [Name in EndpointName]: () => Promise<Answer[]> } = {
  recordAttempt: async () => {
    const attempt = anAttempt();
    return [await post('recordAttempt', attempt), await post('recordAttempt', attempt)];
  },
  recordAttempts: async () => {
    const taskId = unique('contract-batch');
    return [
      await post('recordAttempts', { attempts: [anAttempt({ taskId }), anAttempt({ taskId, attemptNumber: 2 })] }),
    ];
  },
  claimKey: async () => {
    const key = unique('contract-key');
    const acquired = await post('claimKey', { key, requestHash: 'h' });
    await call('completeKey', { key, fencingToken: acquired.body.fencingToken, result: { chargeId: 'ch_1' } });
    return [acquired, await post('claimKey', { key, requestHash: 'h' })];
  },
  completeKey: async () => [await post('completeKey', { ...(await claimedKey()), result: { chargeId: 'ch_2' } })],
  failKey: async () => [
    await post('failKey', { ...(await claimedKey()), errorClass: 'transient', errorText: '503 from the provider' }),
  ],
  startRun: async () => [
    await post('startRun', {
      runKey: unique('contract-run'),
      taskId: unique('contract-task'),
      agent: 'contract-agent',
    }),
  ],
  heartbeatRun: async () => {
    const runKey = unique('contract-run');
    await call('startRun', { runKey, taskId: unique('contract-task'), agent: 'contract-agent' });
    return [await post('heartbeatRun', { runKey })];
  },
  finishRun: async () => {
    const runKey = unique('contract-run');
    await call('startRun', { runKey, taskId: unique('contract-task'), agent: 'contract-agent' });
    return [await post('finishRun', { runKey, status: 'finished' })];
  },
  acquireSlot: async () => {
    // An earlier holder's evidence, so the answer's evidence list is not empty.
    const earlier = await acquiredSlot();
    await call('recordEvidence', { ...earlier, ref: 'page-7' });
    await call('releaseSlot', { slot: earlier.slot, runKey: earlier.runKey });
    return [await post('acquireSlot', { slot: earlier.slot, runKey: unique('contract-run'), ttlMs: 60_000 })];
  },
  heartbeatSlot: async () => [await post('heartbeatSlot', { ...(await acquiredSlot()), ttlMs: 120_000 })],
  releaseSlot: async () => {
    const { slot, runKey } = await acquiredSlot();
    return [await post('releaseSlot', { slot, runKey })];
  },
  recordEvidence: async () => [await post('recordEvidence', { ...(await acquiredSlot()), ref: 'page-8' })],
  reportMcpGateway: async () => [
    await post('reportMcpGateway', {
      instanceId: randomUUID(),
      serverName: 'contract-server',
      version: '0.1.0',
      startedAt: new Date().toISOString(),
      config: { keylessDefault: 'window', maxIdenticalCalls: 25 },
      counts: [{ tool: 'charge', outcome: 'ran', calls: 2 }],
    }),
  ],
  openHold: async () => {
    const item = {
      itemType: 'task',
      itemId: unique('contract-task'),
      reason: 'needs_approval',
      detail: 'Refund over limit',
      owner: 'team:contract',
    };
    await ensureTaskBudget(api.database.db, { taskId: item.itemId, agent: 'contract', owner: 'team:contract' }); // a hold parks an item that exists
    return [await post('openHold', item), await post('openHold', item)];
  },
  deadLetter: async () => [
    await post(
      'deadLetter',
      aDeadLetterInput({
        taskId: unique('contract-dl'),
        agent: 'contract-agent',
        step: 'send',
        queue: 'emails',
        payload: null,
        lastError: '550 no such mailbox',
        owner: 'team:contract',
      }),
    ),
  ],
  claimRedrives: async () => [await post('claimRedrives', { queues: [await dueRedrive()] })],
  acknowledgeRedrive: async () => {
    const { redrives } = (await call('claimRedrives', { queues: [await dueRedrive()] })) as {
      redrives: { outboxKey: string }[];
    };
    return [await post('acknowledgeRedrive', { outboxKey: redrives[0]!.outboxKey })];
  },
  beginStep: async () => {
    const step = aStep();
    const run = await post('beginStep', step);
    await call('finishStep', {
      key: run.body.key,
      fencingToken: run.body.fencingToken,
      outcome: 'succeeded',
      result: { draft: 'ok' },
    });
    return [run, await post('beginStep', step)];
  },
  finishStep: async () => {
    const step = aStep();
    const first = await call('beginStep', step);
    const retry = await post('finishStep', {
      ...attemptOf(first),
      outcome: 'failed',
      errorClass: 'transient',
      errorText: '503',
    });
    const second = await call('beginStep', step);
    const completed = await post('finishStep', { ...attemptOf(second), outcome: 'succeeded', result: { draft: 'ok' } });
    return [retry, completed];
  },
  finishTask: async () => {
    const step = aStep();
    await call('beginStep', step);
    return [await post('finishTask', { taskId: step.taskId, outcome: 'completed' })];
  },
};

type OpenApiSchema = {
  $ref?: string;
  oneOf?: OpenApiSchema[];
  properties?: Record<string, unknown>;
  required?: string[];
};
interface OpenApiDocument {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: OpenApiSchema }> }> }>
  >;
  components: { schemas: Record<string, OpenApiSchema> };
}

async function openApiDocument(): Promise<OpenApiDocument> {
  const response = await api.request('/api/v1/openapi.json', { method: 'GET' });
  expect(response.status).toBe(200);
  return response.body as unknown as OpenApiDocument;
}

/** The object shapes a documented success response allows: one, or one per `oneOf` alternative. */
function documentedShapes(document: OpenApiDocument, schema: OpenApiSchema | undefined): OpenApiSchema[] {
  const resolved = schema?.$ref
    ? document.components.schemas[schema.$ref.replace('#/components/schemas/', '')]
    : schema;
  return resolved?.oneOf ?? (resolved ? [resolved] : []);
}

/** The document agrees with a real answer: some documented shape names every key it has and requires none it lacks. */
function expectDocumented(document: OpenApiDocument, path: string, method: string, answer: Answer) {
  const schema =
    document.paths[path]?.[method]?.responses[String(answer.status)]?.content?.['application/json']?.schema;
  const shapes = documentedShapes(document, schema);
  expect(shapes.length, `${method} ${path} ${answer.status} has no schema`).toBeGreaterThan(0);
  for (const shape of shapes)
    expect(Object.keys(shape.properties ?? {}).length, `${method} ${path}: a shape without properties`).toBeGreaterThan(
      0,
    );
  const keys = Object.keys(answer.body);
  const fits = shapes.some(
    (shape) =>
      keys.every((key) => key in (shape.properties ?? {})) && (shape.required ?? []).every((key) => keys.includes(key)),
  );
  expect(fits, `${method} ${path} ${answer.status}: the document does not describe ${JSON.stringify(keys)}`).toBe(true);
}

/** Parses an answer, failing with zod's own account of what differs. */
function expectParses(schema: z.ZodType, body: unknown) {
  const parsed = schema.safeParse(body);
  expect(parsed.success ? [] : parsed.error.issues, JSON.stringify(body)).toEqual([]);
}

describe('every endpoint answers what packages/protocol/src/api/responses.ts and the OpenAPI document say', () => {
  it.each(Object.keys(endpoints) as EndpointName[])('%s', async (name) => {
    const run = cases[name] as (() => Promise<Answer[]>) | undefined;
    if (!run) throw new Error(`No contract case for ${name}: add one to \`cases\` in this file`);
    const spec = endpoints[name];
    const document = await openApiDocument();
    for (const answer of await run()) {
      expect(
        Object.keys(spec.responses),
        `${name} answered ${answer.status}: ${JSON.stringify(answer.body)}`,
      ).toContain(String(answer.status));
      expectParses(endpointResponses[name], answer.body);
      expectDocumented(document, spec.path, 'post', answer);
    }
  });
});

describe('GET /api/v1/step-stats', () => {
  it('answers what its schema and the OpenAPI document say, for a read token', async () => {
    const attempt = anAttempt({ agent: 'contract-stats', attemptNumber: 2 });
    await call('recordAttempt', attempt);
    const answer = await getStepStats('?window=1h');
    expect(answer.status).toBe(200);
    expectParses(stepStatsResponse, answer.body);
    expect(answer.body.steps).toContainEqual(
      expect.objectContaining({ agent: 'contract-stats', step: 'fetch', retries: 1 }),
    );
    expectDocumented(await openApiDocument(), '/api/v1/step-stats', 'get', answer);
  });
});

describe('problem documents', () => {
  // Strict here: every member the API puts in a problem must be listed in the document's Problem schema.
  const documentedProblem = z.strictObject(problemDocument.shape);

  it('carry only members the Problem schema lists', async () => {
    const { key } = await claimedKey();
    const slot = await acquiredSlot();
    const step = aStep();
    await call('beginStep', step);
    const problems = [
      await post('recordAttempt', anAttempt({ attemptNumber: 0 })), // INVALID_INPUT, fieldErrors
      await post('claimKey', { key, requestHash: 'h' }), // KEY_IN_PROGRESS, key, retryAfterSeconds
      await post('acquireSlot', { slot: slot.slot, runKey: unique('contract-run'), ttlMs: 60_000 }), // SLOT_HELD, holderRunKey
      await post('beginStep', step), // a step's wait: decision, retryAfterMs
      await post('beginStep', { ...step, content: { topic: 'currents' } }), // a step's stop: decision, reason, holdId
      await getStepStats('?window=forever'),
    ];
    expect(problems.map((problem) => problem.body.code)).toEqual([
      'INVALID_INPUT',
      'KEY_IN_PROGRESS',
      'SLOT_HELD',
      'KEY_IN_PROGRESS',
      'KEY_PAYLOAD_MISMATCH',
      'INVALID_INPUT',
    ]);
    for (const problem of problems) expectParses(documentedProblem, problem.body);
  });
});

describe('restated enums', () => {
  it('match the lists in packages/engine/src/db/schema', () => {
    expect(restatedEnums).toEqual({
      attemptOutcomes: tables.attemptOutcomes,
      attemptSources: tables.attemptSources,
      costSources: tables.costSources,
      errorClasses: tables.errorClasses,
      holdItemTypes: tables.holdItemTypes,
      holdReasons: tables.holdReasons,
      holdClosings: tables.holdClosings,
      deadLetterReasons: tables.deadLetterReasons,
      deadLetterStatuses: tables.deadLetterStatuses,
      runStatuses: tables.runStatuses,
      finishedTaskStatuses: tables.finishedTaskStatuses,
    });
  });
});

describe('GET /api/v1/spend-budgets', () => {
  it("answers the budgets' periods as its schema and the OpenAPI document say, for a read token; an ingest token may not", async () => {
    await call('recordAttempt', anAttempt({ agent: 'contract-budgeted', costMicros: 2_500 }));
    const { GET } = await import('../../../app/api/v1/spend-budgets/route');
    const get = (token: string) =>
      GET(
        new NextRequest('http://holdfast.test/api/v1/spend-budgets', { headers: { authorization: `Bearer ${token}` } }),
      );
    const response = await get(api.readToken);
    const answer = { status: response.status, body: (await response.json()) as Record<string, unknown> };
    expect(answer.status).toBe(200);
    expectParses(spendBudgetsResponse, answer.body);
    expect(answer.body.budgets).toContainEqual(
      expect.objectContaining({
        name: 'contract budget',
        limitMicros: 1_000_000,
        spentMicros: 2_500,
        seenMicros: 2_500,
      }),
    );
    expectDocumented(await openApiDocument(), '/api/v1/spend-budgets', 'get', answer);
    expect((await get(api.ingestToken)).status).toBe(403);
  });
});
