import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { recordAttempt, runStep } from '../../../packages/engine/src/core';
import { priceCall } from '../../../packages/engine/src/core/pricing/price-call';
import { DEFAULT_PRICING_RULES } from '../../../packages/engine/src/core/pricing/pricing-rules';
import { forgetStoredRules } from '../../../packages/engine/src/traces/mapping-rules';
import { useApi } from '../../support/api-harness';
import { addKnownOwners } from '../../support/known-owners';

/**
 * Attempts reported through the library and the HTTP API with token counts and a model instead of a
 * cost are priced as spans are (the bundled table, admins' overrides, the failed-call rule), and every
 * attempt records its cost source and the way it came.
 */
const api = useApi();
const db = () => api.database.db;
const usage = { inputTokens: 12_000, cacheReadInputTokens: 2_000, outputTokens: 800 };
const startedAt = () => new Date(Date.now() - 5_000);
const tablePrice = (at: Date) =>
  priceCall({ usage, model: 'gpt-4o', provider: 'openai', at }, DEFAULT_PRICING_RULES).costMicros;

beforeEach(async () => {
  await api.database.sql`delete from price_overrides`;
  forgetStoredRules(db());
});

async function storedAttempt(taskId: string) {
  const [row] = await api.database.sql<{ cost_micros: string; cost_source: string; source: string }[]>`
    select cost_micros, cost_source, source from attempts where task_id = ${taskId}`;
  return row && { costMicros: Number(row.cost_micros), costSource: row.cost_source, source: row.source };
}

function aReport(overrides: Record<string, unknown> = {}) {
  const started = startedAt();
  return {
    taskId: `priced-${randomUUID()}`,
    agent: 'research',
    step: 'summarize',
    attemptNumber: 1,
    startedAt: started,
    finishedAt: new Date(started.getTime() + 1_200),
    outcome: 'succeeded' as const,
    ...overrides,
  };
}

describe('attempts recorded in-process', () => {
  it('tokens and a model are priced by the table; a stated cost is reported; neither is none', async () => {
    const priced = aReport({ usage, model: 'gpt-4o', provider: 'openai' });
    await recordAttempt({ db: db() }, priced);
    expect(tablePrice(priced.startedAt)).toBeGreaterThan(0);
    expect(await storedAttempt(priced.taskId)).toEqual({
      costMicros: tablePrice(priced.startedAt),
      costSource: 'priced',
      source: 'library',
    });

    const stated = aReport({ costMicros: 4_321, usage, model: 'gpt-4o' });
    await recordAttempt({ db: db() }, stated);
    expect(await storedAttempt(stated.taskId)).toEqual({
      costMicros: 4_321,
      costSource: 'reported',
      source: 'library',
    });

    const bare = aReport();
    await recordAttempt({ db: db() }, bare);
    expect(await storedAttempt(bare.taskId)).toEqual({ costMicros: 0, costSource: 'none', source: 'library' });
  });

  it('a call refused with 429 costs 0 by rule; a 503 cut short costs its tokens', async () => {
    const failure = { outcome: 'failed', errorClass: 'rate_limited', errorText: 'Too Many Requests' } as const;
    const refused = aReport({ ...failure, usage, model: 'gpt-4o', httpStatus: 429 });
    await recordAttempt({ db: db() }, refused);
    expect(await storedAttempt(refused.taskId)).toMatchObject({ costMicros: 0, costSource: 'rule' });

    const cut = aReport({ ...failure, errorClass: 'transient', usage, model: 'gpt-4o', httpStatus: 503 });
    await recordAttempt({ db: db() }, cut);
    expect(await storedAttempt(cut.taskId)).toMatchObject({
      costMicros: tablePrice(cut.startedAt),
      costSource: 'priced',
    });
  });

  it("an admin's override prices later reports; a redelivered report priced otherwise is still a duplicate", async () => {
    const report = aReport({ usage, model: 'gpt-4o', provider: 'openai' });
    await recordAttempt({ db: db() }, report);
    await api.database.sql`
      insert into price_overrides (provider, model, input_per_million, output_per_million, updated_by)
      values ('openai', 'gpt-4o', 1, 4, 'admin@example.com')`;
    forgetStoredRules(db());

    const again = await recordAttempt({ db: db() }, report);
    expect(again.duplicate).toBe(true);
    expect(again.attempt.costMicros).toBe(tablePrice(report.startedAt));

    const later = aReport({ usage, model: 'gpt-4o', provider: 'openai' });
    await recordAttempt({ db: db() }, later);
    // 12,000 input tokens (2,000 of them cached, at the input price: no cache price set) x 1 $ + 800 x 4 $, a million each.
    expect(await storedAttempt(later.taskId)).toMatchObject({ costMicros: 12_000 + 3_200, costSource: 'priced' });
  });

  it("runStep's body may return tokens instead of a cost: the attempt and the task's spend are priced", async () => {
    await addKnownOwners(db(), ['team:platform']);
    const taskId = `run-${randomUUID()}`;
    const outcome = await runStep(
      { db: db() },
      { taskId, agent: 'research', owner: 'team:platform', step: 'summarize', content: { q: 1 } },
      async () => ({ result: 'ok', usage, model: 'gpt-4o', provider: 'openai' }),
    );
    expect(outcome.status).toBe('completed');
    const attempt = await storedAttempt(taskId);
    expect(attempt).toMatchObject({ costSource: 'priced', source: 'library' });
    expect(attempt!.costMicros).toBeGreaterThan(0);
    const [budget] = await api.database.sql<{ spend_micros: string }[]>`
      select spend_micros from task_budgets where task_id = ${taskId}`;
    expect(Number(budget!.spend_micros)).toBe(attempt!.costMicros);
  });
});

describe('attempts reported over HTTP', () => {
  it('POST /api/v1/attempts prices tokens and answers the cost and its source', async () => {
    const report = aReport({ usage, model: 'gpt-4o', provider: 'openai' });
    const answer = await api.request('/api/v1/attempts', {
      body: { ...report, startedAt: report.startedAt.toISOString(), finishedAt: report.finishedAt.toISOString() },
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      duplicate: false,
      attempt: { costMicros: tablePrice(report.startedAt), costSource: 'priced' },
    });
    expect(await storedAttempt(report.taskId)).toMatchObject({ costSource: 'priced', source: 'http' });
  });

  it('the step protocol prices a finish that reports tokens; a failed finish refused with 401 costs 0', async () => {
    await addKnownOwners(db(), ['team:platform']);
    const step = { agent: 'research', owner: 'team:platform', step: 'plan', content: { q: 2 } };
    const taskId = `http-${randomUUID()}`;
    const begun = await api.request('/api/v1/steps/begin', { body: { ...step, taskId } });
    expect(begun.body).toMatchObject({ decision: 'run' });
    const finished = await api.request('/api/v1/steps/finish', {
      body: {
        key: begun.body.key,
        fencingToken: begun.body.fencingToken,
        attemptNumber: 1,
        outcome: 'succeeded',
        result: { plan: 'a' },
        usage,
        model: 'gpt-4o',
        provider: 'openai',
      },
    });
    expect(finished.status).toBe(200);
    const attempt = await storedAttempt(taskId);
    expect(attempt).toMatchObject({ costSource: 'priced', source: 'http' });
    expect(attempt!.costMicros).toBeGreaterThan(0);

    const refusedTask = `http-${randomUUID()}`;
    const refusedBegin = await api.request('/api/v1/steps/begin', { body: { ...step, taskId: refusedTask } });
    await api.request('/api/v1/steps/finish', {
      body: {
        key: refusedBegin.body.key,
        fencingToken: refusedBegin.body.fencingToken,
        outcome: 'failed',
        errorClass: 'permanent',
        errorText: 'invalid api key',
        usage,
        model: 'gpt-4o',
        httpStatus: 401,
      },
    });
    expect(await storedAttempt(refusedTask)).toMatchObject({ costMicros: 0, costSource: 'rule', source: 'http' });
  });

  it('token counts are bounded where they enter', async () => {
    const report = aReport({ usage: { inputTokens: 2_000_000_000 }, model: 'gpt-4o' });
    const answer = await api.request('/api/v1/attempts', {
      body: { ...report, startedAt: report.startedAt.toISOString(), finishedAt: report.finishedAt.toISOString() },
    });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('usage');
    expect(await storedAttempt(report.taskId)).toBeUndefined();
  });
});
