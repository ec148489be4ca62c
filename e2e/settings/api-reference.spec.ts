import { randomUUID } from 'node:crypto';
import { createHoldfastClient, HoldfastApiError } from '@holdfast/client';
import { createToken } from '../support/factories';
import { expect, test } from '../support/fixtures';

test('the API reference renders the OpenAPI document, and the typed client works over real HTTP', async ({
  page,
  database,
  baseURL,
  expectAccessible,
}) => {
  await page.goto('/settings/api');
  const endpoint = page.getByTestId('endpoint-recordAttempt');
  await expect(endpoint.getByRole('heading')).toContainText('POST /api/v1/attempts');
  await expect(endpoint.getByRole('row', { name: /startedAt/ })).toContainText('date-time');
  await expectAccessible();

  const { token } = await createToken(database, { scopes: ['ingest'] });
  const client = createHoldfastClient({ baseUrl: baseURL!, token });
  const taskId = `http-${randomUUID().slice(0, 8)}`;
  const now = new Date();
  const report = {
    taskId,
    agent: 'remote-agent',
    step: 'fetch',
    attemptNumber: 1,
    startedAt: new Date(now.getTime() - 800).toISOString(),
    finishedAt: now.toISOString(),
    outcome: 'succeeded' as const,
    costMicros: 700,
  };
  const first = await client.recordAttempt(report, { idempotencyKey: `e2e-${taskId}` });
  expect(first).toMatchObject({ duplicate: false, attempt: { taskId, latencyMs: 800 } });
  expect(await client.recordAttempt(report, { idempotencyKey: `e2e-${taskId}` })).toEqual(first);
  const refused = client.recordAttempt({ ...report, costMicros: 1 });
  await expect(refused).rejects.toBeInstanceOf(HoldfastApiError);
  await expect(refused).rejects.toMatchObject({ status: 409, code: 'ATTEMPT_CONFLICT', retryable: false });

  // The raw document is served to a token holder.
  const document = await fetch(new URL('/api/v1/openapi.json', baseURL), {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(document.status).toBe(200);
  expect(((await document.json()) as { openapi: string }).openapi).toBe('3.1.0');
});
