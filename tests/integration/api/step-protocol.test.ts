import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runStep } from '@holdfast/client';
import { saveSpendBudget, setPause, type Actor } from '../../../packages/engine/src/core';
import { useApi } from '../../support/api-harness';

const api = useApi();

const aStep = (overrides: Record<string, unknown> = {}) => ({
  taskId: `http-${randomUUID()}`,
  agent: 'research',
  owner: 'team:platform',
  step: 'plan',
  content: { q: 1 },
  ...overrides,
});

describe('the step protocol over HTTP', () => {
  it('a paused downstream answers PAUSED: a 409 wait with Retry-After, naming the pause', async () => {
    const downstream = `smtp-${randomUUID().slice(0, 8)}`;
    const responder: Actor = { type: 'person', id: 'rex@example.com', role: 'responder', teams: [] };
    await setPause(
      { db: api.database.db, actor: responder },
      { scope: 'downstream', downstream, reason: 'relay down' },
    );
    const held = await api.request('/api/v1/steps/begin', { body: aStep({ downstream }) });
    expect(held.status).toBe(409);
    expect(held.headers.get('retry-after')).toBe('30');
    expect(held.body).toMatchObject({
      code: 'PAUSED',
      retryable: true,
      decision: 'wait',
      retryAfterMs: 30_000,
      pause: {
        target: downstream,
        reason: 'relay down',
        pausedBy: 'person:rex@example.com',
        until: null,
        ramping: false,
      },
    });
    expect((await api.request('/api/v1/steps/begin', { body: aStep() })).status).toBe(200);

    // The typed client's runStep treats it as a wait: the body never runs.
    let ran = 0;
    const outcome = await runStep(api.client(), aStep({ downstream }), async () => {
      ran += 1;
      return { result: 'sent' };
    });
    expect(outcome).toMatchObject({ status: 'wait', code: 'PAUSED', retryAfterMs: 30_000 });
    expect(ran).toBe(0);
  });

  it('a spent fleet budget answers BUDGET_EXHAUSTED, naming it, and a stopping one DO_NOT_RETRY, in both clients', async () => {
    const admin: Actor = { type: 'person', id: 'ada@example.com', role: 'admin', teams: [] };
    const [waiting, stopping] = [`waiter-${randomUUID().slice(0, 6)}`, `stopper-${randomUUID().slice(0, 6)}`];
    for (const [agent, onExhausted] of [
      [waiting, 'wait'],
      [stopping, 'stop'],
    ] as const) {
      await saveSpendBudget(
        { db: api.database.db, actor: admin },
        {
          name: agent,
          scope: 'agent',
          scopeValue: agent,
          period: 'hour',
          limitUsd: 0.001,
          onExhausted,
          reason: 'test',
        },
      );
      expect(
        (await api.request('/api/v1/steps/begin', { body: aStep({ agent, estimatedCostMicros: 1_000 }) })).status,
      ).toBe(200);
    }
    const spent = await api.request('/api/v1/steps/begin', { body: aStep({ agent: waiting, estimatedCostMicros: 1 }) });
    expect(spent.status).toBe(409);
    expect(Number(spent.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(spent.body).toMatchObject({
      code: 'BUDGET_EXHAUSTED',
      retryable: true,
      decision: 'wait',
      budget: { name: waiting, scope: 'agent', scopeValue: waiting, period: 'hour', limitMicros: 1_000 },
    });
    const body = async () => ({ result: 'never' });
    expect(await runStep(api.client(), aStep({ agent: waiting, estimatedCostMicros: 1 }), body)).toMatchObject({
      status: 'wait',
      code: 'BUDGET_EXHAUSTED',
    });
    const stopped = await runStep(api.client(), aStep({ agent: stopping, estimatedCostMicros: 1 }), body);
    expect(stopped).toMatchObject({ status: 'stop', code: 'DO_NOT_RETRY', reason: 'budget_exhausted' });
  });

  it('begin answers run; a concurrent duplicate waits with Retry-After; finish completes; a redelivery replays', async () => {
    const step = aStep();
    const begun = await api.request('/api/v1/steps/begin', { body: step });
    expect(begun.status).toBe(200);
    expect(begun.body).toMatchObject({ decision: 'run', attemptNumber: 1, fencingToken: 1 });

    const duplicate = await api.request('/api/v1/steps/begin', { body: step });
    expect(duplicate.status).toBe(409);
    expect(duplicate.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(duplicate.body).toMatchObject({
      code: 'KEY_IN_PROGRESS',
      retryable: true,
      decision: 'wait',
      retryAfterMs: expect.any(Number),
    });

    const finished = await api.request('/api/v1/steps/finish', {
      body: {
        key: begun.body.key,
        fencingToken: 1,
        attemptNumber: 1,
        outcome: 'succeeded',
        result: { plan: 'a' },
        costMicros: 900,
      },
    });
    expect(finished).toMatchObject({
      status: 200,
      body: { decision: 'completed', attemptNumber: 1, taskStatus: 'active' },
    });
    expect(await api.request('/api/v1/steps/begin', { body: step })).toMatchObject({
      status: 200,
      body: { decision: 'replay', result: { plan: 'a' } },
    });
  });

  it('a permanent failure stops with DO_NOT_RETRY, not retryable, naming its reason, dead letter and hold', async () => {
    const begun = await api.request('/api/v1/steps/begin', { body: aStep() });
    const stopped = await api.request('/api/v1/steps/finish', {
      body: {
        key: begun.body.key,
        fencingToken: begun.body.fencingToken,
        outcome: 'failed',
        errorClass: 'permanent',
        errorText: '400 invalid recipient',
      },
    });
    expect(stopped.status).toBe(409);
    expect(stopped.headers.get('content-type')).toContain('application/problem+json');
    expect(stopped.body).toMatchObject({
      code: 'DO_NOT_RETRY',
      retryable: false,
      decision: 'stop',
      reason: 'permanent_error',
      deadLetterId: expect.any(Number),
      holdId: expect.any(Number),
    });
  });

  it('refuses bad input naming each field, an unknown attempt with 404 and a finished task with TASK_FINISHED', async () => {
    const bad = await api.request('/api/v1/steps/begin', { body: aStep({ estimatedCostMicros: -1, owner: 'nobody' }) });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.fieldErrors as object).sort()).toEqual(['estimatedCostMicros', 'owner']);
    expect(
      await api.request('/api/v1/steps/finish', {
        body: { key: 'never/begun', fencingToken: 1, outcome: 'succeeded', result: 1 },
      }),
    ).toMatchObject({
      status: 404,
      body: { code: 'NOT_FOUND' },
    });

    const step = aStep();
    await api.request('/api/v1/steps/begin', { body: step });
    expect(
      await api.request('/api/v1/tasks/finish', { body: { taskId: step.taskId, outcome: 'completed' } }),
    ).toMatchObject({
      status: 200,
      body: { taskId: step.taskId, status: 'completed', changed: true },
    });
    expect(await api.request('/api/v1/steps/begin', { body: { ...step, step: 'next' } })).toMatchObject({
      status: 409,
      body: { code: 'TASK_FINISHED', retryable: false, reason: 'task_finished' },
    });
  });

  it('answers only to the host names Holdfast serves: the step endpoints check it themselves (proxy.ts skips them)', async () => {
    const step = aStep();
    for (const path of ['/api/v1/steps/begin', '/api/v1/steps/finish']) {
      const foreign = await api.request(path, { body: step, headers: { host: 'rebind.attacker.example' } });
      expect(foreign).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
      expect(foreign.body.detail).toContain('does not answer to that host name');
    }
    expect((await api.request('/api/v1/steps/begin', { body: step, headers: { host: 'localhost:3000' } })).status).toBe(
      200,
    );
  });
});
