import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { NextRequest } from 'next/server';
import { describe, expect, it, vi } from 'vitest';
import { MAX_BATCH_BODY_BYTES } from '@holdfast/protocol/api/endpoints';
import { MAX_BODY_BYTES } from '../../../lib/server/api-auth';
import { MAX_JSON_DEPTH } from '../../../lib/server/json-depth';
import { useApi } from '../../support/api-harness';

/** An hour ago, so the reports stay inside the raw retention whatever day the tests run. */
const anHourAgo = Date.now() - 3_600_000;
const recently = (offsetMs = 0) => new Date(anHourAgo + offsetMs).toISOString();

// The console's route handlers read the session from cookies; here the signed-in person is given.
vi.mock('../../../lib/server/session', () => ({
  getCurrentPerson: async () => ({ type: 'person', id: 'admin@example.com', role: 'admin', teams: [] }),
}));

/** Faults in how a request is written, rather than in what it says: each gets a 4xx, never a 500. */
const api = useApi();

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

/** A failed attempt as a real worker reports it: uuid-sized ids and a 200-character error text. */
function realisticAttempt(index: number) {
  const taskId = `task-${randomUUID()}`;
  return {
    taskId,
    agent: 'outreach-agent',
    step: 'send_follow_up_email',
    attemptNumber: 2,
    startedAt: recently(),
    finishedAt: recently(4_250),
    outcome: 'failed',
    errorClass: 'transient',
    errorText: `upstream 503 from mail gateway (attempt ${index}): `.padEnd(200, 'connection reset by peer; '),
    costMicros: 12_345,
    idempotencyKey: `${taskId}/send_follow_up_email/2`,
    runKey: `run-${randomUUID()}`,
  };
}

describe('deeply nested JSON', () => {
  it.each([
    ['without an Idempotency-Key', {}],
    ['with an Idempotency-Key', { 'idempotency-key': `deep-${randomUUID()}` }],
  ])('a body nested 5,000 deep gets 400 naming the limit, %s', async (_label, headers) => {
    for (const path of ['/api/v1/attempts', '/api/v1/attempts/batch', '/api/v1/keys/claim']) {
      const response = await api.request(path, { body: `{"attempts":${nested(5_000)}}`, headers });
      expect(response.status, path).toBe(400);
      expect(response.body).toMatchObject({ code: 'INVALID_INPUT' });
      expect(String(response.body.detail)).toContain(String(MAX_JSON_DEPTH));
    }
  });

  it('brackets inside a string are text, not nesting', async () => {
    const attempt = { ...realisticAttempt(0), errorText: `parser failed on ${nested(2_000)}` };
    const response = await api.request('/api/v1/attempts', {
      body: attempt,
      headers: { 'idempotency-key': `text-${randomUUID()}` },
    });
    expect(response.status).toBe(201);
  });
});

describe('the batch body limit', () => {
  it('a full batch of 1,000 realistic attempts fits and is recorded in one request', async () => {
    const attempts = Array.from({ length: 1_000 }, (_, index) => ({
      ...realisticAttempt(index),
      step: 'send_batch_email',
    }));
    const body = JSON.stringify({ attempts });
    // It would not fit the default limit, which is why the batch has its own.
    expect(Buffer.byteLength(body)).toBeGreaterThan(MAX_BODY_BYTES);
    expect(Buffer.byteLength(body)).toBeLessThan(MAX_BATCH_BODY_BYTES);

    const response = await api.request('/api/v1/attempts/batch', {
      body,
      headers: { 'idempotency-key': `full-batch-${randomUUID()}` },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ recorded: 1_000, duplicates: 0 });
    const [row] = await api.database.db.execute<{ count: number }>(
      sql`select count(*)::int as count from attempts where step = 'send_batch_email'`,
    );
    expect(row!.count).toBe(1_000);
  });

  it('a batch past its own limit gets 413, and single attempts keep the 64 KiB limit', async () => {
    const huge = JSON.stringify({
      attempts: [{ ...realisticAttempt(0), errorText: 'x'.repeat(MAX_BATCH_BODY_BYTES) }],
    });
    expect((await api.request('/api/v1/attempts/batch', { body: huge })).status).toBe(413);
    const single = JSON.stringify({ ...realisticAttempt(0), errorText: 'x'.repeat(MAX_BODY_BYTES) });
    expect((await api.request('/api/v1/attempts', { body: single })).status).toBe(413);
  });
});

describe('bad percent-encoding and NUL in query strings', () => {
  const queries = ['window=%00', 'window=%E0%A4%A', 'window=%', 'window=%zz', '%E0%A4%A=24h', 'window=24h%00'];

  it.each(queries)('GET /api/v1/step-stats?%s answers 400, not 500', async (query) => {
    const { GET } = await import('../../../app/api/v1/step-stats/route');
    const request = new NextRequest(`http://holdfast.test/api/v1/step-stats?${query}`, {
      headers: { authorization: `Bearer ${api.readToken}` },
    });
    const response = await GET(request);
    expect(response.status).toBe(400);
  });

  it.each(queries)('the console route handlers answer ?%s with 400, not 500', async (query) => {
    const routes = {
      overview: await import('../../../app/api/console/overview/route'),
      'step-stats': await import('../../../app/api/console/step-stats/route'),
      'audit.csv': await import('../../../app/api/console/audit.csv/route'),
    };
    for (const [name, { GET }] of Object.entries(routes)) {
      const response = await GET(new NextRequest(`http://holdfast.test/api/console/${name}?${query}`));
      expect(response.status, name).toBe(400);
    }
  });

  it.each(['actor=%00', 'targetId=%E0%A4%A', 'action=%00hold'])(
    'GET /api/console/audit.csv?%s answers 400 or an empty export, not 500',
    async (query) => {
      const { GET } = await import('../../../app/api/console/audit.csv/route');
      const response = await GET(new NextRequest(`http://holdfast.test/api/console/audit.csv?${query}`));
      expect([200, 400]).toContain(response.status);
    },
  );

  it.each(['%00', '%E0%A4%A', '1%00'])('GET /api/console/bulk-redrives/%s answers 400, not 500', async (id) => {
    const { GET } = await import('../../../app/api/console/bulk-redrives/[id]/route');
    const response = await GET(new NextRequest(`http://holdfast.test/api/console/bulk-redrives/${id}`), {
      params: Promise.resolve({ id }),
    });
    expect(response.status).toBe(400);
  });
});
