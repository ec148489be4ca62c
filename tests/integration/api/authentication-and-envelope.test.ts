import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { endpoints, MAX_BATCH_BODY_BYTES, tracesEndpoint } from '@holdfast/protocol/api/endpoints';
import { exportTraceServiceResponse } from '../../../lib/api/openapi-traces';
import { HoldfastApiError } from '@holdfast/client';
import { deadLetterTask, redriveDeadLetter } from '../../../packages/engine/src/core';
import { attempts, holds, taskBudgets } from '../../../packages/engine/src/db/schema';
import { MAX_INFLATED_TRACES_BODY_BYTES, MAX_TRACES_BODY_BYTES } from '../../../lib/server/traces-endpoint';
import { useApi } from '../../support/api-harness';
import { oncall } from '../../support/actors';

/** An hour ago, so the reports stay inside the raw retention whatever day the tests run. */
const anHourAgo = Date.now() - 3_600_000;
const recently = (offsetMs = 0) => new Date(anHourAgo + offsetMs).toISOString();

const api = useApi();

const anAttempt = (overrides: Record<string, unknown> = {}) => ({
  taskId: `api-${randomUUID()}`,
  agent: 'api-agent',
  step: 'fetch',
  attemptNumber: 1,
  startedAt: recently(),
  finishedAt: recently(1_500),
  outcome: 'succeeded',
  costMicros: 1_200,
  ...overrides,
});

async function attemptCount(taskId: string) {
  const [row] = await api.database.db
    .select({ count: sql<number>`count(*)`.mapWith(Number) })
    .from(attempts)
    .where(eq(attempts.taskId, taskId));
  return row?.count ?? 0;
}

/** What a problem response must look like, whatever the endpoint. */
function expectProblem(
  response: { status: number; headers: Headers; body: Record<string, unknown> },
  status: number,
  code: string,
) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toContain('application/problem+json');
  expect(response.body).toMatchObject({ status, code, title: code, type: 'about:blank' });
  expect(typeof response.body.detail).toBe('string');
}

describe('authentication and the envelope, on every endpoint', () => {
  const paths = [
    '/api/v1/attempts',
    '/api/v1/attempts/batch',
    '/api/v1/keys/claim',
    '/api/v1/keys/complete',
    '/api/v1/keys/fail',
    '/api/v1/runs/start',
    '/api/v1/runs/heartbeat',
    '/api/v1/runs/finish',
    '/api/v1/slots/acquire',
    '/api/v1/slots/heartbeat',
    '/api/v1/slots/release',
    '/api/v1/slots/evidence',
    '/api/v1/holds',
    '/api/v1/dead-letters',
    '/api/v1/redrives/claim',
    '/api/v1/redrives/ack',
    '/api/v1/steps/begin',
    '/api/v1/steps/finish',
    '/api/v1/tasks/finish',
  ];

  it.each(paths)(
    '%s: 401 without a token, 403 with a read-only token, 400 naming an unknown field, 413 past 64 KiB (the batch: past its own limit), 400 for broken JSON or NUL',
    async (path) => {
      const limit = path === '/api/v1/attempts/batch' ? MAX_BATCH_BODY_BYTES : 64 * 1024;
      expectProblem(await api.request(path, { body: {}, token: null }), 401, 'UNAUTHENTICATED');
      expectProblem(await api.request(path, { body: {}, token: 'hf_not-a-real-token' }), 401, 'UNAUTHENTICATED');
      const readOnly = await api.request(path, { body: {}, token: api.readToken });
      expectProblem(readOnly, 403, 'FORBIDDEN');
      expect(readOnly.body.detail).toContain('ingest scope');

      const unknown = await api.request(path, { body: { surprise: true } });
      expectProblem(unknown, 400, 'INVALID_INPUT');
      expect(unknown.body.retryable).toBe(false);
      expect(Object.keys(unknown.body.fieldErrors as object).join(' ')).toMatch(/surprise|\(input\)/);

      expectProblem(
        await api.request(path, { body: JSON.stringify({ padding: 'x'.repeat(limit + 6 * 1024) }) }),
        413,
        'PAYLOAD_TOO_LARGE',
      );
      expectProblem(await api.request(path, { body: '{"broken": ' }), 400, 'INVALID_INPUT');
      expectProblem(await api.request(path, { body: '{"text": "a\\u0000b"}' }), 400, 'INVALID_INPUT');
      // No Content-Length to trust: the body is read as a stream and cut off at the limit.
      const chunked = await api.request(path, {
        body: new ReadableStream({
          start(controller) {
            for (let i = 0; i < limit / 1_024 + 16; i += 1)
              controller.enqueue(new TextEncoder().encode('x'.repeat(1_024)));
            controller.close();
          },
        }),
        headers: { 'content-length': 'not-a-number' },
      });
      expectProblem(chunked, 413, 'PAYLOAD_TOO_LARGE');
    },
  );
});

describe('attempts', () => {
  it('records one (201), answers a repeat with the stored one (200), and refuses a conflicting report (409, stop)', async () => {
    const attempt = anAttempt();
    const first = await api.request('/api/v1/attempts', { body: attempt });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      duplicate: false,
      attempt: { taskId: attempt.taskId, latencyMs: 1_500, costMicros: 1_200 },
    });
    const again = await api.request('/api/v1/attempts', { body: attempt });
    expect(again).toMatchObject({ status: 200, body: { duplicate: true } });
    const conflict = await api.request('/api/v1/attempts', { body: { ...attempt, costMicros: 9 } });
    expectProblem(conflict, 409, 'ATTEMPT_CONFLICT');
    expect(conflict.body.retryable).toBe(false);
    expect(await attemptCount(attempt.taskId)).toBe(1);
  });

  it('names every bad field of a report', async () => {
    const response = await api.request('/api/v1/attempts', {
      body: anAttempt({ attemptNumber: 0, outcome: 'failed', startedAt: 'soon' }),
    });
    expectProblem(response, 400, 'INVALID_INPUT');
    expect(Object.keys(response.body.fieldErrors as object)).toEqual(
      expect.arrayContaining(['attemptNumber', 'startedAt']),
    );
  });

  it('records a batch all or nothing, naming bad items by index, and a conflict by index', async () => {
    const taskId = `batch-${randomUUID()}`;
    const batch = [1, 2, 3].map((attemptNumber) => anAttempt({ taskId, attemptNumber }));
    const invalid = await api.request('/api/v1/attempts/batch', {
      body: { attempts: [batch[0], { ...batch[1], startedAt: 'never' }, batch[2], { nope: 1 }] },
    });
    expectProblem(invalid, 400, 'INVALID_INPUT');
    expect(Object.keys(invalid.body.fieldErrors as object)).toEqual(
      expect.arrayContaining(['attempts.1.startedAt', 'attempts.3.taskId']),
    );
    expect(await attemptCount(taskId)).toBe(0);

    expect(await api.request('/api/v1/attempts/batch', { body: { attempts: batch } })).toMatchObject({
      status: 200,
      body: { recorded: 3, duplicates: 0 },
    });
    const conflicting = await api.request('/api/v1/attempts/batch', {
      body: { attempts: [anAttempt({ taskId, attemptNumber: 4 }), { ...batch[1], costMicros: 1 }] },
    });
    expectProblem(conflicting, 409, 'ATTEMPT_CONFLICT');
    expect(conflicting.body.detail).toContain('attempts.1');
    expect(await attemptCount(taskId)).toBe(3); // attempt 4 was rolled back with the conflict

    const tooMany = await api.request('/api/v1/attempts/batch', {
      body: { attempts: Array.from({ length: 1_001 }, () => ({})) },
    });
    expectProblem(tooMany, 400, 'INVALID_INPUT');
  });

  it('answers a retried request with the same Idempotency-Key with the first response, and refuses the key for another request', async () => {
    const attempt = anAttempt();
    const key = `retry-${randomUUID()}`;
    const first = await api.request('/api/v1/attempts', { body: attempt, headers: { 'idempotency-key': key } });
    const retried = await api.request('/api/v1/attempts', { body: attempt, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    expect(retried.status).toBe(201); // the first response, not "duplicate: true"
    expect(retried.body).toEqual(first.body);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    // A "try later" answer is not kept: a retry with the same key really tries again.
    const slot = `retry-slot-${randomUUID()}`;
    await api.client().acquireSlot({ slot, runKey: 'holder', ttlMs: 60_000 });
    const busy = await api.request('/api/v1/slots/acquire', {
      body: { slot, runKey: 'waiter', ttlMs: 60_000 },
      headers: { 'idempotency-key': `slot-${key}` },
    });
    expectProblem(busy, 409, 'SLOT_HELD');
    await api.client().releaseSlot({ slot, runKey: 'holder' });
    const retriedSlot = await api.request('/api/v1/slots/acquire', {
      body: { slot, runKey: 'waiter', ttlMs: 60_000 },
      headers: { 'idempotency-key': `slot-${key}` },
    });
    expect(retriedSlot).toMatchObject({ status: 200, body: { outcome: 'acquired' } });

    const reused = await api.request('/api/v1/attempts', { body: anAttempt(), headers: { 'idempotency-key': key } });
    expectProblem(reused, 422, 'IDEMPOTENCY_KEY_REUSED');
    expectProblem(
      await api.request('/api/v1/attempts', { body: attempt, headers: { 'idempotency-key': 'has spaces' } }),
      400,
      'INVALID_INPUT',
    );
  });
});

describe('keys', () => {
  it('claims, replays a completed result, says "try later" while in progress and "stop" on a payload mismatch', async () => {
    const client = api.client();
    const key = `order-${randomUUID()}/charge`;
    const claim = await client.claimKey({ key, requestHash: 'h1', inProgressTtlMs: 60_000 });
    expect(claim).toMatchObject({ outcome: 'acquired', attemptNumber: 1 });
    if (claim.outcome !== 'acquired') throw new Error('expected acquired');

    const busy = await api.request('/api/v1/keys/claim', { body: { key, requestHash: 'h1' } });
    expectProblem(busy, 409, 'KEY_IN_PROGRESS');
    expect(busy.body.retryable).toBe(true);
    expect(Number(busy.headers.get('retry-after'))).toBeGreaterThan(0);

    await client.completeKey({ key, fencingToken: claim.fencingToken, result: { chargeId: 'ch_1' } });
    expect(await client.claimKey({ key, requestHash: 'h1' })).toMatchObject({
      outcome: 'replay',
      result: { chargeId: 'ch_1' },
    });

    const mismatch = await api.request('/api/v1/keys/claim', { body: { key, requestHash: 'h2' } });
    expectProblem(mismatch, 409, 'KEY_PAYLOAD_MISMATCH');
    expect(mismatch.body.retryable).toBe(false);
    await expect(client.completeKey({ key, fencingToken: claim.fencingToken + 5, result: null })).rejects.toMatchObject(
      { code: 'STALE_TOKEN', status: 409 },
    );
  });

  it('fails a key so a retry may claim it again, and says "stop" for an uncertain outcome', async () => {
    const client = api.client();
    const key = `mail-${randomUUID()}/send`;
    const claim = await client.claimKey({ key, requestHash: 'h' });
    if (claim.outcome !== 'acquired') throw new Error('expected acquired');
    await client.failKey({ key, fencingToken: claim.fencingToken, errorClass: 'transient', errorText: '503' });
    expect(await client.claimKey({ key, requestHash: 'h' })).toMatchObject({ outcome: 'acquired', attemptNumber: 2 });

    const risky = `raw:sms-${randomUUID()}/send`;
    await client.claimKey({ key: risky, requestHash: 'h', downstreamIdempotent: false, inProgressTtlMs: 60_000 });
    // Its holder died: the claim's expiry is moved into the past by hand, not slept through.
    const expired = await api.database
      .sql`update idempotency_keys set locked_until = now() - interval '1 second' where key = ${risky}`;
    expect(expired.count).toBe(1);
    const uncertain = client.claimKey({ key: risky, requestHash: 'h', downstreamIdempotent: false });
    await expect(uncertain).rejects.toBeInstanceOf(HoldfastApiError);
    await expect(uncertain).rejects.toMatchObject({ code: 'UNCERTAIN_OUTCOME', retryable: false });
  });
});

describe('runs and slots', () => {
  it('starts a run, takes a slot, refuses it to another run with Retry-After, records evidence, heartbeats, releases and finishes', async () => {
    const client = api.client();
    const slot = `publish:${randomUUID().slice(0, 8)}`;
    const runKey = `run-${randomUUID()}`;
    expect((await client.startRun({ runKey, taskId: `task-${randomUUID()}`, agent: 'publishing' })).run).toMatchObject({
      runKey,
      status: 'running',
    });
    await client.heartbeatRun({ runKey });
    const lock = await client.acquireSlot({ slot, runKey, ttlMs: 60_000 });
    expect(lock).toMatchObject({ outcome: 'acquired', slot, evidence: [] });

    const held = await api.request('/api/v1/slots/acquire', { body: { slot, runKey: 'someone-else', ttlMs: 60_000 } });
    expectProblem(held, 409, 'SLOT_HELD');
    expect(held.body).toMatchObject({ retryable: true, holderRunKey: runKey });
    expect(Number(held.headers.get('retry-after'))).toBeGreaterThan(0);

    await client.recordEvidence({ slot, runKey, fencingToken: lock.fencingToken, ref: 'page-7' });
    expect(
      new Date(
        (await client.heartbeatSlot({ slot, runKey, fencingToken: lock.fencingToken, ttlMs: 120_000 })).expiresAt,
      ).getTime(),
    ).toBeGreaterThan(Date.now() + 60_000);
    await client.releaseSlot({ slot, runKey });
    await client.finishRun({ runKey, status: 'finished' });
    await expect(client.releaseSlot({ slot, runKey: 'someone-else' })).rejects.toMatchObject({ code: 'NOT_HOLDER' });
    await expect(client.heartbeatRun({ runKey: `never-${randomUUID()}` })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      status: 404,
    });
  });
});

describe('holds, dead letters and redrives', () => {
  it('opens a hold once per item', async () => {
    const client = api.client();
    const item = {
      itemType: 'task' as const,
      itemId: `t-${randomUUID()}`,
      reason: 'needs_approval' as const,
      detail: 'Refund over limit',
      owner: 'team:payments',
    };
    // A hold parks an item that exists.
    await api.database.db.insert(taskBudgets).values({
      taskId: item.itemId,
      agent: 'payments',
      queue: 'payments',
      owner: 'team:payments',
      retryAllowance: 2,
      spendCeilingMicros: 1_000_000,
      timeAllowanceMs: 3_600_000,
      deadline: new Date(Date.now() + 3_600_000),
    });
    const first = await api.request('/api/v1/holds', { body: item });
    expect(first).toMatchObject({ status: 201, body: { created: true } });
    expect(await client.openHold(item)).toMatchObject({ created: false });
    const [row] = await api.database.db.select().from(holds).where(eq(holds.itemId, item.itemId));
    expect(row?.openedBy).toMatch(/^agent:token:/);
    expectProblem(await api.request('/api/v1/holds', { body: { ...item, reason: 'bored' } }), 400, 'INVALID_INPUT');
  });

  it('dead-letters a task, and lets a drainer claim and acknowledge its redrive: at least once, acknowledged once', async () => {
    const client = api.client();
    const taskId = `dl-${randomUUID()}`;
    const { deadLetter } = await client.deadLetter({
      taskId,
      agent: 'outreach',
      step: 'send',
      queue: 'emails',
      payload: { to: 'a@example.com' },
      reason: 'retry_ceiling',
      errorClass: 'transient',
      lastError: '451 try later',
      attempts: 4,
      spendMicros: 900,
      owner: 'team:growth',
    });
    expect(deadLetter).toMatchObject({ taskId, status: 'pending' });
    await redriveDeadLetter(
      { db: api.database.db, actor: oncall },
      { deadLetterId: deadLetter.id, reason: 'provider back' },
    );

    expect((await client.claimRedrives({ queues: ['some-other-queue'] })).redrives).toEqual([]);
    const { redrives } = await client.claimRedrives({ queues: ['emails'], limit: 10, leaseMs: 1_000 });
    const mine = redrives.find((redrive) => redrive.deadLetterId === deadLetter.id);
    expect(mine).toMatchObject({ queue: 'emails', payload: { to: 'a@example.com' } });
    // Claimed rows are hidden from other drainers for the lease...
    expect(
      (await client.claimRedrives({ limit: 10 })).redrives.find((redrive) => redrive.deadLetterId === deadLetter.id),
    ).toBeUndefined();
    // ...and handed out again when not acknowledged in time.
    await api.database.db.execute(
      sql`update redrives set next_attempt_at = now() where outbox_key = ${mine!.outboxKey}`,
    );
    expect((await client.claimRedrives({ limit: 10 })).redrives.map((redrive) => redrive.outboxKey)).toContain(
      mine!.outboxKey,
    );

    expect(await client.acknowledgeRedrive({ outboxKey: mine!.outboxKey })).toMatchObject({ changed: true });
    expect(await client.acknowledgeRedrive({ outboxKey: mine!.outboxKey })).toMatchObject({ changed: false });
    await expect(client.acknowledgeRedrive({ outboxKey: 'nope' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('keeps one pending dead letter per task however the API is called', async () => {
    const input = {
      taskId: `dl-${randomUUID()}`,
      agent: 'outreach',
      step: 'send',
      queue: 'emails',
      payload: null,
      reason: 'retry_ceiling' as const,
      errorClass: 'transient' as const,
      lastError: 'x',
      attempts: 2,
      spendMicros: 0,
      owner: 'team:growth',
    };
    const [first, second] = await Promise.all([
      api.client().deadLetter(input),
      deadLetterTask(api.database.db, { type: 'agent', id: 'direct', scopes: ['ingest'] }, input),
    ]);
    expect(first.deadLetter.id).toBe(second.deadLetter.id);
  });
});

describe('the OpenAPI document', () => {
  it('describes every endpoint with its request schema, for a token holder', async () => {
    const response = await api.request('/api/v1/openapi.json', { method: 'GET' });
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    const paths = response.body.paths as Record<
      string,
      {
        post: {
          operationId: string;
          requestBody: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
        };
      }
    >;
    // Every agent endpoint, the three GETs a read token may call, and the OpenTelemetry traces receiver.
    expect(Object.keys(paths).sort()).toEqual(
      [
        ...Object.values(endpoints).map((spec) => spec.path),
        '/api/v1/spend-budgets',
        '/api/v1/step-stats',
        '/api/v1/steps/simulate',
        '/v1/traces',
      ].sort(),
    );
    expect(
      paths['/api/v1/attempts']!.post.requestBody.content['application/json']!.schema.properties!.startedAt,
    ).toMatchObject({ type: 'string', format: 'date-time' });
    expect((await api.request('/api/v1/openapi.json', { method: 'GET', token: 'hf_not-a-real-token' })).status).toBe(
      401,
    );
  });
});

/** The routes a token calls (app/api/v1 and app/v1), each with the HTTP methods its route.ts exports. */
function tokenRoutesOnDisk(): Map<string, string[]> {
  const appDir = path.resolve(import.meta.dirname, '../../../app');
  const routes = new Map<string, string[]>();
  for (const base of ['api/v1', 'v1']) {
    for (const entry of fs.readdirSync(path.join(appDir, base), { recursive: true, encoding: 'utf8' })) {
      if (path.basename(entry) !== 'route.ts') continue;
      const source = fs.readFileSync(path.join(appDir, base, entry), 'utf8');
      const methods = [
        ...source.matchAll(/export (?:async function|function|const) (GET|POST|PUT|PATCH|DELETE)\b/g),
      ].map((m) => m[1]!.toLowerCase());
      routes.set(`/${base}/${path.dirname(entry)}`, methods.sort());
    }
  }
  return routes;
}

describe('the OpenAPI document against the routes', () => {
  it('describes every route a token calls, with exactly the methods it answers (the document itself aside)', async () => {
    const document = await api.request('/api/v1/openapi.json', { method: 'GET' });
    const paths = document.body.paths as Record<string, Record<string, unknown>>;
    const documented = Object.entries(paths).map(
      ([route, operations]) => [route, Object.keys(operations).sort()] as const,
    );
    const onDisk = [...tokenRoutesOnDisk()].filter(([route]) => route !== '/api/v1/openapi.json');
    expect(new Map(documented)).toEqual(new Map(onDisk));
  });

  it('describes POST /v1/traces as the receiver answers it', async () => {
    const document = await api.request('/api/v1/openapi.json', { method: 'GET' });
    const traces = (document.body.paths as Record<string, Record<string, Record<string, unknown>>>)['/v1/traces']!
      .post as {
      requestBody: { content: Record<string, unknown> };
      parameters: { name: string; schema: { enum: string[] } }[];
      responses: Record<string, { headers?: Record<string, unknown>; content: Record<string, { schema: unknown }> }>;
    };
    expect(Object.keys(traces.requestBody.content).sort()).toEqual(['application/json', 'application/x-protobuf']);
    expect(traces.parameters).toContainEqual(
      expect.objectContaining({
        name: 'Content-Encoding',
        schema: expect.objectContaining({ enum: ['gzip', 'identity'] }),
      }),
    );
    expect(Object.keys(traces.responses).sort()).toEqual(['200', '400', '401', '403', '413', '415', '429', '503']);
    expect(Object.keys(traces.responses['200']!.content).sort()).toEqual([
      'application/json',
      'application/x-protobuf',
    ]);
    for (const status of ['429', '503']) expect(traces.responses[status]!.headers).toHaveProperty('Retry-After');
    // The limits it states are the receiver's.
    expect([tracesEndpoint.maxBodyBytes, tracesEndpoint.maxInflatedBodyBytes]).toEqual([
      MAX_TRACES_BODY_BYTES,
      MAX_INFLATED_TRACES_BODY_BYTES,
    ]);

    // Real answers: each status is documented, a JSON success parses with the documented response schema.
    const span = (name: string) => ({
      traceId: randomBytes(16).toString('hex'),
      spanId: randomBytes(8).toString('hex'),
      name,
      startTimeUnixNano: String(BigInt(Date.now() - 2_000) * 1_000_000n),
      endTimeUnixNano: String(BigInt(Date.now() - 1_000) * 1_000_000n),
      attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'chat' } }],
    });
    const exportOf = (spans: object[]) => ({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'openapi-traces' } }] },
          scopeSpans: [{ spans }],
        },
      ],
    });
    const taken = await api.request('/v1/traces', { body: exportOf([span('summarize')]) });
    // A span that ends before it starts is rejected; the rest of the batch is taken.
    const backwards = { ...span('draft'), endTimeUnixNano: '1' };
    const partly = await api.request('/v1/traces', { body: exportOf([span('summarize'), backwards]) });
    expect([taken.status, partly.status]).toEqual([200, 200]);
    expect(exportTraceServiceResponse.parse(taken.body)).toEqual({});
    expect(exportTraceServiceResponse.parse(partly.body)).toEqual({
      partialSuccess: { rejectedSpans: '1', errorMessage: expect.any(String) },
    });
    const refusals = [
      await api.request('/v1/traces', { body: '{"resourceSpans": [' }),
      await api.request('/v1/traces', { body: exportOf([]), token: 'hf_not-a-real-token' }),
      await api.request('/v1/traces', { body: exportOf([]), token: api.readToken }),
      await api.request('/v1/traces', { body: 'x', headers: { 'content-type': 'text/plain' } }),
    ];
    expect(refusals.map((answer) => answer.status)).toEqual([400, 401, 403, 415]);
    for (const answer of [taken, ...refusals]) expect(Object.keys(traces.responses)).toContain(String(answer.status));
    for (const answer of refusals) expect(answer.headers.get('content-type')).toContain('application/problem+json');
  });
});
