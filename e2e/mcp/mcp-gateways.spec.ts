import { randomUUID } from 'node:crypto';
import { recordMcpGatewayReport } from '../../packages/engine/src/core';
import { uniqueId } from '../support/factories';
import { expect, test } from '../support/fixtures';

/**
 * The MCP gateways page: what a gateway reported of each tool's calls, beside what the tool's steps cost, and the
 * instance with its options; on a phone too.
 */
test('shows what the gateways did with each tool, what the tools cost, and the instances', async ({
  page,
  database,
  recordAttempts,
  expectAccessible,
}) => {
  const server = uniqueId('e2e-pay');
  const instanceId = randomUUID();
  const agent = uniqueId('e2e-mcp-agent');
  await recordMcpGatewayReport(
    { db: database.db, actor: { type: 'agent', id: 'e2e-gateway', scopes: ['ingest'] } },
    {
      instanceId,
      serverName: server,
      version: '0.1.0',
      startedAt: new Date().toISOString(),
      config: { keylessDefault: 'window', rateLimits: 'charge=30/m', maxIdenticalCalls: 25 },
      counts: [
        { tool: 'charge', outcome: 'ran', calls: 2 },
        { tool: 'charge', outcome: 'replayed', calls: 3 },
        { tool: 'charge', outcome: 'refused_arguments', calls: 1 },
        { tool: 'charge', outcome: 'refused_unknown_tool', calls: 1 },
        { tool: 'charge', outcome: 'rate_limited', calls: 4 },
        { tool: 'lookup', outcome: 'passed_through', calls: 7 },
      ],
    },
  );
  const startedAt = new Date(Date.now() - 10 * 60_000);
  await recordAttempts(
    [1, 2].map((number) => ({
      taskId: `task-${randomUUID().slice(0, 8)}`,
      agent,
      step: `${server}:charge`,
      attemptNumber: 1,
      outcome: 'succeeded' as const,
      costMicros: 2_500,
      startedAt: new Date(startedAt.getTime() + number * 1_000),
      finishedAt: new Date(startedAt.getTime() + number * 1_000 + 300),
    })),
  );

  await page.goto('/');
  await page.getByRole('navigation').getByRole('link', { name: 'MCP gateways' }).click();
  const section = page.getByTestId(`mcp-server-${server}`);
  const charge = section.getByTestId('mcp-tool-charge');
  await expect(charge.getByTestId('calls')).toHaveText('11');
  await expect(charge.getByTestId('outcome-ran')).toHaveText('2');
  await expect(charge.getByTestId('outcome-replayed')).toHaveText('3');
  // Refused: the caller's mistakes together (an unknown tool and arguments the schema refused).
  await expect(charge.getByTestId('outcome-refused_unknown_tool')).toHaveText('2');
  await expect(charge.getByTestId('outcome-rate_limited')).toHaveText('4');
  await expect(charge.getByTestId('attempts')).toHaveText('2');
  await expect(charge.getByTestId('cost')).toHaveText('$0.0050');
  await expect(section.getByTestId('mcp-tool-lookup').getByTestId('outcome-passed_through')).toHaveText('7');
  const instance = page.getByTestId(`mcp-instance-${instanceId}`);
  await expect(instance).toContainText('0.1.0');
  await instance.getByText(/options, reported by/).click();
  await expect(instance).toContainText('charge=30/m');
  await expectAccessible();

  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(
    page.getByTestId(`mcp-server-${server}`).getByTestId('mcp-tool-charge').getByTestId('cost'),
  ).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
});
