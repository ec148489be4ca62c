import { randomUUID } from 'node:crypto';
import { NextRequest } from 'next/server';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../../lib/api/openapi';
import { policySimulationResponse } from '@holdfast/protocol/api/responses';
import { createApiToken, recordAttempt } from '../../../packages/engine/src/core';
import { rollUpAttempts } from '../../../packages/engine/src/rollups/roll-up';
import { useApi } from '../../support/api-harness';
import { aPerson } from '../../support/actors';

const api = useApi();
const admin = aPerson('admin', 'admin@example.com');

async function simulate(query: Record<string, string>, token = api.readToken) {
  const { GET } = await import('../../../app/api/v1/steps/simulate/route');
  const response = await GET(
    new NextRequest(`http://holdfast.test/api/v1/steps/simulate?${new URLSearchParams(query)}`, {
      headers: { authorization: `Bearer ${token}` },
    }),
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('GET /api/v1/steps/simulate', () => {
  it('answers what the simulator says, in its documented shape; names bad parameters; keeps a limited token to its agents', async () => {
    const agent = `sim-${randomUUID().slice(0, 8)}`;
    const taskId = `task-${randomUUID()}`;
    const start = Date.now() - 3_600_000;
    for (const [index, outcome] of (['failed', 'failed', 'succeeded'] as const).entries()) {
      await recordAttempt(
        { db: api.database.db },
        {
          taskId,
          agent,
          step: 'plan',
          attemptNumber: index + 1,
          startedAt: new Date(start + index * 60_000),
          finishedAt: new Date(start + index * 60_000 + 1_000),
          outcome,
          ...(outcome === 'failed' ? { errorClass: 'transient' as const, errorText: '503' } : {}),
          costMicros: 1_000,
        },
      );
    }
    // The simulator reads what the rollup pass keeps (the executions' shapes per hour).
    await rollUpAttempts(api.database.db, { now: new Date(), retentionFloor: new Date(start - 86_400_000) });
    const window = { from: new Date(start - 60_000).toISOString(), to: new Date().toISOString() };
    const answer = await simulate({
      agent,
      step: 'plan',
      ...window,
      maxAttempts: '2',
      retriedClasses: 'transient,timeout',
    });
    expect(answer.status).toBe(200);
    expect(policySimulationResponse.parse(answer.body)).toEqual({
      // Whole hours: from the hour holding \`from\` to now.
      window: {
        from: new Date(Math.floor((start - 60_000) / 3_600_000) * 3_600_000).toISOString(),
        to: expect.any(String),
      },
      executions: 1,
      stoppedEarlier: 1,
      attemptsSaved: 1,
      retrySpendSavedMicros: 1_000,
      successesLost: 1,
      timeSavedMs: 60_000,
      byErrorClass: [
        {
          errorClass: 'transient',
          stoppedEarlier: 1,
          attemptsSaved: 1,
          retrySpendSavedMicros: 1_000,
          successesLost: 1,
          timeSavedMs: 60_000,
        },
      ],
    });

    const bad = await simulate({ agent, step: 'plan', from: 'yesterday', to: window.to, maxAttempts: 'two' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'INVALID_INPUT', fieldErrors: { maxAttempts: [expect.any(String)] } });

    const { token } = await createApiToken(
      { db: api.database.db, actor: admin },
      { name: `limited-${randomUUID().slice(0, 8)}`, scopes: ['read'], allowedAgents: ['someone-else'] },
    );
    const limited = await simulate({ agent, step: 'plan', ...window, maxAttempts: '2' }, token);
    expect(limited.status).toBe(403);
    expect(limited.body).toMatchObject({ code: 'FORBIDDEN' });

    const document = buildOpenApiDocument() as { paths: Record<string, { get?: { operationId: string } }> };
    expect(document.paths['/api/v1/steps/simulate']?.get?.operationId).toBe('simulateRetryPolicy');
  });
});
